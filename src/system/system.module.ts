import { Global, Module } from '@nestjs/common';
import { ReadinessRegistry } from './readiness.registry';
import { SystemController } from './system.controller';
import { SystemService } from './system.service';

@Global()
@Module({ controllers: [SystemController], providers: [SystemService, ReadinessRegistry], exports: [ReadinessRegistry] })
export class SystemModule {}
