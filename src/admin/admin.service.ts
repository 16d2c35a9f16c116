import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiKeysService, CreatedApiKey } from '../api-keys/api-keys.service';
import { normalizeEmail } from '../auth/signup.service';
import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination/pagination';
import { closestMatch } from '../common/validation/suggest';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { QueueService } from '../infra/queue/queue.service';
import { JobRepository } from '../jobs/job.repository';
import { JobSchedulerService } from '../jobs/job-scheduler.service';
import { PlanCatalogService } from '../workspaces/plan-catalog.service';
import { FREE_PLAN_NAME, publishPlan } from '../config/plans';
import { SUSPENDED_JOB_CODE } from '../workspaces/suspension';
import { UsageReport, UsageService } from '../workspaces/usage.service';
import { Workspace } from '../workspaces/workspace.entity';
import { toWorkspaceView, WorkspaceView } from '../workspaces/workspace.view';
import { WorkspaceRepository } from '../workspaces/workspace.repository';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { AdminAuditRepository, AuditEntry } from './admin-audit.repository';
import { AdminWorkspaceQueryDto, CreateAdminWorkspaceDto, UpdateAdminWorkspaceDto } from './dto/admin-workspace.dto';

/** A workspace id's shape: anything else is not found without a query. */
const WORKSPACE_ID = /^ws_[0-9A-Z]{26}$/;

export type AdminWorkspaceView = WorkspaceView & { suspended: boolean; suspended_at: string | null };

export function toAdminView(ws: Workspace): AdminWorkspaceView {
  return { ...toWorkspaceView(ws), suspended: ws.suspendedAt !== null, suspended_at: ws.suspendedAt?.toISOString() ?? null };
}

/**
 * What the operator does to workspaces through /v1/admin/ (docs/operations.md). Every change is
 * written to the audit table in its own transaction and logged once committed.
 */
@Injectable()
export class AdminService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly rows: WorkspaceRepository,
    private readonly plans: PlanCatalogService,
    private readonly usage: UsageService,
    private readonly apiKeys: ApiKeysService,
    private readonly workspaces: WorkspacesService,
    private readonly jobs: JobRepository,
    private readonly scheduler: JobSchedulerService,
    private readonly queues: QueueService,
    private readonly audit: AdminAuditRepository,
  ) {}

  async list(query: AdminWorkspaceQueryDto, limit: number): Promise<Page<AdminWorkspaceView>> {
    const before = decodeCursor(query.cursor, 'ws');
    const suspended = query.suspended === undefined ? undefined : query.suspended === 'true';
    const rows = await this.rows.listForAdmin({ before, email: query.email, plan: query.plan, suspended }, limit + 1);
    return toPage(rows, limit, toAdminView);
  }

  async get(id: string): Promise<AdminWorkspaceView & { usage: UsageReport }> {
    const workspace = await this.find(id);
    return { ...toAdminView(workspace), usage: await this.usage.report(workspace) };
  }

  /** A verified workspace and its first key, without mail (the operator vouches for the email). */
  async create(body: CreateAdminWorkspaceDto): Promise<{ workspace: AdminWorkspaceView; api_key: CreatedApiKey }> {
    const plan = this.knownPlan(body.plan ?? this.plans.defaultPlan);
    const email = normalizeEmail(body.email);
    const { result, entry } = await this.transactions.run(async (tx) => {
      // The lock signup and OIDC sync take for an email: no two workspaces for one address.
      await this.rows.lockEmail(tx, email);
      const taken = await this.rows.findByEmail(tx, email);
      if (taken) throw new ApiError('conflict', `Workspace ${taken.id} already has the email ${email}`, { workspace_id: taken.id });
      const id = newId('ws');
      await this.rows.insert(tx, { id, name: body.name, email, emailVerifiedAt: new Date(), plan });
      const apiKey = await this.apiKeys.create(id, 'admin', tx);
      const workspace = toAdminView(await this.rows.getById(tx, id));
      const entry = await this.audit.record(tx, { action: 'workspace.create', workspace_id: id, before: null, after: workspace });
      return { result: { workspace, api_key: apiKey }, entry };
    });
    this.audit.log(entry);
    return result;
  }

  /**
   * Plan, suspension and name. A new plan applies from each job's next check (dispatch re-checks
   * quota against it; its waiting queue entries move to the plan's concurrency tier). Suspending
   * cancels the jobs no worker has started yet (`error.code` workspace_suspended); running ones
   * finish. The workspace's keys are refused from their next request (ApiKeyGuard).
   */
  async update(id: string, body: UpdateAdminWorkspaceDto): Promise<AdminWorkspaceView> {
    if (body.plan === undefined && body.suspended === undefined && body.name === undefined) {
      throw ApiError.validation([{ type: 'missing', loc: ['body'], msg: 'Send plan, suspended, name or several of them', pointer: '' }]);
    }
    const plan = body.plan === undefined ? undefined : this.knownPlan(body.plan);
    const { view, entry } = await this.transactions.run(async (tx) => {
      const current = await this.lock(tx, id);
      const before = toAdminView(current);
      const changes: Partial<Workspace> = {};
      if (body.name !== undefined) changes.name = body.name;
      if (plan !== undefined && plan !== current.plan) {
        changes.plan = plan;
        await this.queues.retierGroupInTransaction(tx, id, this.plans.tierOf(plan));
      }
      if (body.suspended === true && !current.suspendedAt) {
        changes.suspendedAt = new Date();
        await this.cancelWaitingJobs(tx, id);
      }
      if (body.suspended === false && current.suspendedAt) changes.suspendedAt = null;
      if (Object.keys(changes).length > 0) await this.rows.update(id, changes, tx);
      const view = toAdminView(await this.rows.getById(tx, id));
      const entry = Object.keys(changes).length > 0 ? await this.audit.record(tx, { action: 'workspace.update', workspace_id: id, before, after: view }) : null;
      return { view, entry };
    });
    if (entry) this.audit.log(entry);
    return view;
  }

  /** The owner's delete (WorkspacesService.remove): rows cascade, running jobs stop, files go. */
  async remove(id: string): Promise<void> {
    const workspace = await this.find(id);
    await this.workspaces.remove(workspace);
    const entry: AuditEntry = await this.transactions.run((tx) =>
      this.audit.record(tx, { action: 'workspace.delete', workspace_id: id, before: toAdminView(workspace), after: null }),
    );
    this.audit.log(entry);
  }

  async listPlans() {
    const held = await this.rows.countByPlan();
    return {
      default_plan: this.plans.defaultPlan,
      data: this.plans.names().map((name) => ({
        name,
        default: name === this.plans.defaultPlan,
        built_in: name === FREE_PLAN_NAME,
        workspaces: held.get(name) ?? 0,
        ...publishPlan(this.plans.limits(name)),
      })),
    };
  }

  private async cancelWaitingJobs(tx: EntityManager, workspaceId: string): Promise<void> {
    const cancelled = await this.jobs.cancelWaiting(tx, workspaceId, {
      code: SUSPENDED_JOB_CODE,
      message: "Cancelled before it started: the service's operator suspended this workspace",
    });
    for (const job of cancelled) await this.scheduler.dequeue(tx, job);
  }

  private knownPlan(name: string): string {
    if (this.plans.has(name)) return name;
    const suggestion = closestMatch(name, this.plans.names());
    throw ApiError.validation([
      { type: 'enum', loc: ['body', 'plan'], msg: `Unknown plan "${name}"; the plans are ${this.plans.names().join(', ')}`, pointer: '/plan', ...(suggestion ? { suggestion } : {}) },
    ]);
  }

  private async find(id: string): Promise<Workspace> {
    const workspace = WORKSPACE_ID.test(id) ? await this.rows.findById(id) : null;
    if (!workspace) throw ApiError.notFound(`Workspace ${id}`);
    return workspace;
  }

  private async lock(tx: EntityManager, id: string): Promise<Workspace> {
    const workspace = WORKSPACE_ID.test(id) ? await this.rows.lockById(tx, id) : null;
    if (!workspace) throw ApiError.notFound(`Workspace ${id}`);
    return workspace;
  }
}
