import { Global, Module } from '@nestjs/common';
import { ReadinessRegistry } from './readiness.registry';

/** Infrastructure: modules add the readiness checks of what they run here; `/v1/ready` runs them. */
@Global()
@Module({ providers: [ReadinessRegistry], exports: [ReadinessRegistry] })
export class ReadinessModule {}
