import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { substituteVariables } from '../../composition/src/schema';
import { ApiError, ValidationErrorItem } from '../common/errors/api-error';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination/pagination';
import { Job } from '../jobs/job.entity';
import { JobRepository } from '../jobs/job.repository';
import { JobSchedulerService } from '../jobs/job-scheduler.service';
import { JobStoreService } from '../jobs/job-store.service';
import { JobSubmissionService } from '../jobs/job-submission.service';
import { JobView } from '../jobs/job.view';
import { QuotaService } from '../jobs/quota.service';
import { ProjectRepository } from '../projects/project.repository';
import { Project } from '../projects/project.entity';
import { RenderReuseService } from '../renders/render-reuse.service';
import { PreparedRender, RendersService } from '../renders/renders.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { Workspace } from '../workspaces/workspace.entity';
import { BatchEventPublisherService } from './batch-event-publisher.service';
import { Batch } from './batch.entity';
import { BatchRepository } from './batch.repository';
import { BatchRow, checkRowVariables, rowError } from './batch-rows';
import { BatchView, toBatchView } from './batch.view';

export interface BatchInput {
  rows: BatchRow[];
  output_filename?: string;
  metadata?: Record<string, unknown>;
  webhook_url?: string;
  /** false: every row renders, even when an identical render (earlier, or another row) could serve it. */
  reuse?: boolean;
}

/** The most rows' problems one 422 lists before it stops checking. */
const MAX_ROW_ERRORS = 100;

/**
 * Batches (docs/decisions.md, Batches and reuse): one ordinary render job per row of variables of
 * a project. Every row is checked and the whole estimate reserved before anything is written;
 * then the batch and all its jobs commit in one transaction (queue entries included).
 */
@Injectable()
export class BatchesService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly batches: BatchRepository,
    private readonly projects: ProjectRepository,
    private readonly renders: RendersService,
    private readonly reuse: RenderReuseService,
    private readonly quota: QuotaService,
    private readonly submission: JobSubmissionService,
    private readonly webhooks: WebhooksService,
    private readonly jobs: JobRepository,
    private readonly store: JobStoreService,
    private readonly scheduler: JobSchedulerService,
    private readonly events: BatchEventPublisherService,
  ) {}

  async create(workspace: Workspace, projectId: string, input: BatchInput, idempotencyKey?: string): Promise<{ replayed: boolean; body: BatchView }> {
    const project = await this.projects.findInWorkspace(workspace.id, projectId);
    if (!project) throw ApiError.notFound(`Project ${projectId}`);
    this.webhooks.assertJobWebhookUrl(input.webhook_url);
    checkRowVariables(input.rows, project.renderRequest, project.variables);
    const prepared = await this.prepareRows(workspace, project, input);
    const hashes = await Promise.all(prepared.map((row) => this.reuse.requestHash(workspace.id, row.request)));

    const outcome = await this.submission.idempotent(
      workspace,
      { scope: 'batches', key: idempotencyKey, payload: { project_id: projectId, ...input } },
      async (tx) => {
        // Each distinct request once: an earlier stored render, or the first row that renders it.
        const earlier = new Map<string, Job | null>();
        for (const hash of new Set(hashes.filter((h): h is string => h !== null))) earlier.set(hash, await this.reuse.findEarlier(tx, workspace.id, hash));
        const renders = prepared.filter((_, index) => !isRepeat(hashes, index) && !(hashes[index] && earlier.get(hashes[index]!)));
        // What the batch will render fits the month's render minutes, or nothing is queued (402).
        await this.quota.reserve(tx, 'render', workspace, renders.reduce((sum, row) => sum + row.cost.billedSeconds, 0));
        const batch = await this.batches.insert(tx, {
          id: newId('batch'),
          workspaceId: workspace.id,
          projectId: project.id,
          projectVersion: project.version,
          rowCount: prepared.length,
          outputFilename: input.output_filename ?? null,
          metadata: input.metadata ?? {},
          webhookUrl: input.webhook_url ?? null,
        });
        const leaders = new Map<string, Job>();
        for (const [index, row] of prepared.entries()) {
          const hash = hashes[index];
          const options = { projectId: project.id, projectVersion: project.version, batch: { id: batch.id, row: index + 1 }, quotaReserved: true };
          const leader = hash ? leaders.get(hash) : undefined;
          if (leader) {
            await this.renders.createFollower(tx, workspace, row, hash!, options, leader);
            continue;
          }
          const job = await this.renders.createJob(tx, workspace, row, hash, options, hash ? earlier.get(hash) : null);
          if (hash && job.status !== 'completed') leaders.set(hash, job);
        }
        return this.present(batch, tx);
      },
    );
    if (!outcome.replayed) {
      const reused = await this.jobs.listBatchRows(outcome.body.id, 'completed');
      await this.renders.publishReused(reused.map((job) => job.id));
      // Every row reused: the batch has ended already.
      await this.events.completeIfEnded(outcome.body.id);
      if (reused.length > 0) return { replayed: false, body: await this.get(workspace, outcome.body.id) };
    }
    return outcome;
  }

  async list(workspace: Workspace, limit: number, cursor?: string): Promise<Page<BatchView>> {
    const rows = await this.batches.list(workspace.id, limit, decodeCursor(cursor, 'batch'));
    const counts = await this.batches.counts(rows.slice(0, limit).map((row) => row.id));
    return toPage(rows, limit, (row) => toBatchView(row, counts.get(row.id)!));
  }

  async get(workspace: Workspace, id: string): Promise<BatchView> {
    return this.present(await this.find(workspace, id));
  }

  /** The batch's renders in row order, paged by row. */
  async rendersPage(workspace: Workspace, id: string, limit: number, cursor?: string): Promise<Page<JobView>> {
    await this.find(workspace, id);
    return this.store.listBatch(workspace, id, { limit, cursor });
  }

  /** Queued rows are cancelled and leave the queue; running rows finish. 409 when the batch has ended. */
  async cancel(workspace: Workspace, id: string): Promise<BatchView> {
    const batch = await this.find(workspace, id);
    if (batch.completedAt) throw new ApiError('conflict', `Batch ${id} has already ended`, { status: batch.cancelledAt ? 'cancelled' : 'completed' });
    await this.transactions.run(async (tx) => {
      await this.batches.markCancelled(tx, id);
      for (const job of await this.jobs.lockBatchRows(tx, id, ['queued', 'ingesting'])) {
        if (await this.jobs.cancel(tx, job.id)) await this.scheduler.dequeue(tx, job);
      }
    });
    await this.events.completeIfEnded(id);
    return this.get(workspace, id);
  }

  /** The row's render request, prepared as a project render is; a row's problems point into `/rows/N`. */
  private async prepareRows(workspace: Workspace, project: Project, input: BatchInput): Promise<PreparedRender[]> {
    const prepared: PreparedRender[] = [];
    const errors: ValidationErrorItem[] = [];
    for (const row of input.rows) {
      if (errors.length >= MAX_ROW_ERRORS) break;
      const variables = { ...project.variables, ...row.variables };
      try {
        const body = {
          ...project.renderRequest,
          output_filename: this.fileName(project, input, variables, row.index),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          ...(input.webhook_url !== undefined ? { webhook_url: input.webhook_url } : {}),
          ...(input.reuse !== undefined ? { reuse: input.reuse } : {}),
        };
        prepared.push(await this.renders.prepare(workspace, body, { template: { variables } }));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        errors.push(...rowProblems(error, row, project.renderRequest));
      }
    }
    if (errors.length > 0) throw ApiError.validation(errors.slice(0, MAX_ROW_ERRORS));
    return prepared;
  }

  /** `output_filename` with the row's variables and `{{row}}` (from 1) filled; the project's own name otherwise. */
  private fileName(project: Project, input: BatchInput, variables: Record<string, string>, index: number): string | undefined {
    const template = input.output_filename ?? (project.renderRequest.output_filename as string | undefined) ?? `${project.id}-{{row}}`;
    const filled = substituteVariables(template, { ...variables, row: String(index + 1) });
    if (!filled.ok) {
      throw ApiError.validation([
        { type: 'missing', loc: ['body', 'output_filename'], msg: `output_filename names {{${filled.missing[0].name}}}, which is neither a variable nor {{row}}`, pointer: '/output_filename' },
      ]);
    }
    return filled.value;
  }

  private async find(workspace: Workspace, id: string): Promise<Batch> {
    const batch = await this.batches.findInWorkspace(workspace.id, id);
    if (!batch) throw ApiError.notFound(`Batch ${id}`);
    return batch;
  }

  private async present(batch: Batch, manager?: EntityManager): Promise<BatchView> {
    const counts = await this.batches.counts([batch.id], manager);
    return toBatchView(batch, counts.get(batch.id)!);
  }
}

/** Whether an earlier row of the batch has the same request (rendered once, for both). */
function isRepeat(hashes: (string | null)[], index: number): boolean {
  return hashes[index] !== null && hashes.indexOf(hashes[index]) < index;
}

/**
 * A row's 422 (or source error) as problems at `/rows/N/<variable>`: the variable whose value
 * landed where the problem is, or the row itself when the project's own text is at fault.
 */
function rowProblems(error: ApiError, row: BatchRow, template: Record<string, unknown>): ValidationErrorItem[] {
  const items: ValidationErrorItem[] =
    (error.details?.errors as ValidationErrorItem[] | undefined) ??
    [{ type: error.code, loc: ['body'], msg: error.message, pointer: typeof error.details?.pointer === 'string' ? error.details.pointer : '' }];
  return items.map((item) => {
    if (item.pointer === '/output_filename') return { ...item, msg: `Row ${row.index + 1}: output_filename: ${item.msg}`, loc: ['body', 'output_filename'] };
    const name = variableAt(template, item.pointer, Object.keys(row.variables));
    const where = row.csv ? `CSV line ${row.csv.line}${name ? `, column ${row.csv.columns.indexOf(name) + 1} ("${name}")` : ''}: ` : '';
    const inProject = name ? '' : ` (at ${item.pointer || '/'} of the project's render request)`;
    const problem = rowError(row.index, name, item.type, `${where}${item.msg}${inProject}`);
    return row.csv ? { ...problem, loc: ['body', 'line', row.csv.line, 'column', name ? row.csv.columns.indexOf(name) + 1 : 0] } : problem;
  });
}

/** The row variable whose placeholder sits at `pointer` of the template (or inside it), if any. */
function variableAt(template: unknown, pointer: string, names: string[]): string | null {
  let node: unknown = template;
  for (const segment of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') break;
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  const text = JSON.stringify(node ?? '');
  return names.find((name) => text.includes(`{{${name}}}`)) ?? null;
}

