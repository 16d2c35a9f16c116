import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { PlanCatalogService } from './plan-catalog.service';
import type { PlanLimits } from '../config/plans';
import type { Workspace } from './workspace.entity';
import { WorkspaceRepository } from './workspace.repository';

type WorkspaceCap = Exclude<keyof PlanLimits['workspace'], 'concurrentRenders'>;

const CAP_NOUNS: Record<WorkspaceCap, string> = {
  webhooks: 'webhooks',
  apiKeys: 'API keys',
  openUploads: 'open upload slots',
  projects: 'projects',
  brandKits: 'brand kits',
};

const CAP_NAMES: Record<WorkspaceCap, string> = {
  webhooks: 'webhooks',
  apiKeys: 'api_keys',
  openUploads: 'open_uploads',
  projects: 'projects',
  brandKits: 'brand_kits',
};

/** The per-workspace caps of the workspace's plan (webhooks, keys, open uploads, projects, brand kits). */
@Injectable()
export class WorkspaceCapsService {
  constructor(
    private readonly plans: PlanCatalogService,
    private readonly workspaces: WorkspaceRepository,
  ) {}

  /**
   * Refuses to create one more object of a kind when the workspace already holds as many as its
   * plan allows (403 `forbidden`, naming the limit). Call inside the creating transaction: the
   * advisory lock makes concurrent creations count one after another, so the cap holds exactly.
   * `count` counts what the workspace holds now (the caller owns that table).
   */
  async assertBelow(tx: EntityManager, workspace: Workspace, cap: WorkspaceCap, count: () => Promise<number>): Promise<void> {
    const max = this.plans.limits(workspace.plan).workspace[cap];
    if (max === null) return;
    await this.workspaces.lockCap(tx, cap, workspace.id);
    const held = await count();
    if (held >= max) {
      throw new ApiError(
        'forbidden',
        `This workspace has ${held} ${CAP_NOUNS[cap]}, the most the ${workspace.plan} plan allows; remove one first (GET /v1/capabilities, limits.plans)`,
        { limit: CAP_NAMES[cap], max },
      );
    }
  }
}
