import { Global, Module } from '@nestjs/common';
import { ReadinessRegistryService } from './readiness-registry.service';

/** Infrastructure: modules add the readiness checks of what they run here; `/v1/ready` runs them. */
@Global()
@Module({ providers: [ReadinessRegistryService], exports: [ReadinessRegistryService] })
export class ReadinessModule {}
