import { Global, Module } from '@nestjs/common';
import { PlanCatalog } from './plan-catalog';
import { WorkspaceCaps } from './workspace-caps';

/** The plan catalog and the per-workspace caps, injectable everywhere (they only read the configuration). */
@Global()
@Module({ providers: [PlanCatalog, WorkspaceCaps], exports: [PlanCatalog, WorkspaceCaps] })
export class PlansModule {}
