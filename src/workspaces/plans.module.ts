import { Global, Module } from '@nestjs/common';
import { PlanCatalog } from './plan-catalog';
import { WorkspaceCaps } from './workspace-caps';
import { WorkspaceRepository } from './workspace.repository';

/**
 * The plan catalog, the per-workspace caps and the workspaces table, injectable everywhere: every
 * feature reads the caller's workspace and plan.
 */
@Global()
@Module({ providers: [PlanCatalog, WorkspaceCaps, WorkspaceRepository], exports: [PlanCatalog, WorkspaceCaps, WorkspaceRepository] })
export class PlansModule {}
