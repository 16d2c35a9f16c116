import { Global, Module } from '@nestjs/common';
import { PlanCatalogService } from './plan-catalog.service';
import { WorkspaceCapsService } from './workspace-caps.service';
import { WorkspaceRepository } from './workspace.repository';

/**
 * The plan catalog, the per-workspace caps and the workspaces table, injectable everywhere: every
 * feature reads the caller's workspace and plan.
 */
@Global()
@Module({ providers: [PlanCatalogService, WorkspaceCapsService, WorkspaceRepository], exports: [PlanCatalogService, WorkspaceCapsService, WorkspaceRepository] })
export class PlansModule {}
