import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  findUnsupported,
  findViolations,
  MediaInfo,
  RenderedPreviewOptions,
  RenderRequest,
  ResolvedRequest,
  resolveRequest,
  truncateViolations,
  validateRenderRequest,
  Violation,
} from '../../composition/src/schema';
import { MediaIntakeService, RenderIntake } from '../assets/media-intake.service';
import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { Page } from '../common/pagination/pagination';
import { Job, JobStatus } from '../jobs/job.entity';
import { JobPresenterService } from '../jobs/job-presenter.service';
import { JobRepository, NewJob } from '../jobs/job.repository';
import { EventPublisher } from '../jobs/event-publisher';
import { JobStoreService } from '../jobs/job-store.service';
import { JobSubmissionService, JobWrite } from '../jobs/job-submission.service';
import { JobView } from '../jobs/job.view';
import { WebhooksService } from '../webhooks/webhooks.service';
import { PlanCatalogService } from '../workspaces/plan-catalog.service';
import { Workspace } from '../workspaces/workspace.entity';
import { assertPreviewFits } from './preview-job';
import { capViolations, RenderCost, renderCost, runLimitSeconds } from './render-cost';
import { RENDER_QUEUE } from './render-queue';
import { CaptionSourcesService } from './caption-sources.service';
import { RenderReuseService } from './render-reuse.service';
import { RenderTemplatesService, TemplateOptions } from './render-templates.service';

export type RenderSubmitOut = JobView & { ok: boolean; violations: ReturnType<typeof truncateViolations> };

export interface SubmitOptions {
  idempotencyKey?: string;
  /** What the Idempotency-Key is bound to when it is not the body itself (a project render). */
  idempotencyPayload?: unknown;
  projectId?: string;
  projectVersion?: number;
  /** A preview job (POST /v1/preview): `is_preview`, never metered, ahead in the queue. */
  preview?: RenderedPreviewOptions;
  /** Template values (project renders); see RenderTemplatesService. */
  template?: TemplateOptions;
  /** A row of a batch: the batch and the row number (from 1). */
  batch?: { id: string; row: number };
  /** The caller reserved the quota already (a batch reserves its whole estimate at once). */
  quotaReserved?: boolean;
}

export interface PreparedRender {
  request: RenderRequest;
  ingest: boolean;
  media: Record<string, MediaInfo>;
  resolved: ResolvedRequest;
  cost: RenderCost;
  violations: Violation[];
  ok: boolean;
}

/** Parses a render request at the boundary; every problem is a 422 in the spec's shape. */
export function parseRenderRequest(body: unknown): RenderRequest {
  const parsed = validateRenderRequest(body);
  if (!parsed.ok) throw ApiError.validation(parsed.errors);
  const unsupported = findUnsupported(parsed.value);
  if (unsupported.length > 0) {
    const names = unsupported.map((u) => u.pointer || '/').join(', ');
    throw new ApiError('unsupported_feature', `Not supported by this renderer yet: ${names}. GET /v1/capabilities lists what is`, {
      errors: unsupported,
    });
  }
  return parsed.value;
}

@Injectable()
export class RendersService {
  constructor(
    private readonly submission: JobSubmissionService,
    private readonly presenter: JobPresenterService,
    private readonly jobs: JobStoreService,
    private readonly jobRows: JobRepository,
    private readonly intake: MediaIntakeService,
    private readonly webhooks: WebhooksService,
    private readonly templates: RenderTemplatesService,
    private readonly captions: CaptionSourcesService,
    private readonly plans: PlanCatalogService,
    private readonly reuse: RenderReuseService,
    private readonly events: EventPublisher,
  ) {}

  /**
   * Every check a submit makes before it writes anything, in order: templates filled (project
   * variables, brand kit), the body (422), the webhook URL, the sources (`checkSources: false` reads
   * no file and no asset: unknown lengths count as the schema's fallback; `sources` replaces the
   * submit's source checks, as a dry run does), the plan's per-render caps. A dry run reports what
   * this throws.
   */
  async prepare(
    workspace: Workspace,
    body: unknown,
    options: { checkSources?: boolean; sources?: (workspace: Workspace, request: RenderRequest) => Promise<RenderIntake>; template?: TemplateOptions } = {},
  ): Promise<PreparedRender> {
    const filled = await this.templates.fill(workspace, body, options.template);
    const parsed = parseRenderRequest(filled.body);
    await this.captions.assertTasks(workspace.id, parsed);
    this.webhooks.assertJobWebhookUrl(parsed.webhook_url);
    const { request, ingest, media } = options.sources
      ? await options.sources(workspace, parsed)
      : options.checkSources === false
        ? this.intake.prepareWithoutSources(workspace, parsed)
        : await this.intake.prepareRender(workspace, parsed);
    // Media lengths not known yet count as the schema's fallback; the worker checks again once probed.
    const resolved = resolveRequest(request, media);
    const cost = renderCost(request, resolved);
    const overCaps = capViolations(cost, this.plans.limits(workspace.plan), workspace.plan);
    if (overCaps.length > 0) throw ApiError.validation(overCaps);
    const violations = [...filled.notes, ...findViolations(request, media)];
    return { request, ingest, media, resolved, cost, violations, ok: !violations.some((v) => v.severity === 'error') };
  }

  async submit(workspace: Workspace, body: unknown, options: SubmitOptions = {}): Promise<{ replayed: boolean; body: RenderSubmitOut }> {
    // Sources are checked (and stored assets read) before anything is written: a 422 leaves no trace.
    const prepared = await this.prepare(workspace, body, { template: options.template });
    if (options.preview) assertPreviewFits(options.preview, prepared.resolved);
    const isPreview = options.preview !== undefined;
    const requestHash = isPreview ? null : await this.reuse.requestHash(workspace.id, prepared.request);

    const outcome = await this.submission.submit(
      workspace,
      // A preview's key is its own: the same render body previewed is not the same request.
      isPreview
        ? { scope: 'previews', key: options.idempotencyKey, payload: { body, preview: options.preview } }
        : { scope: 'renders', key: options.idempotencyKey, payload: options.idempotencyPayload ?? body },
      (tx) => this.jobWrite(tx, workspace, prepared, requestHash, options),
      async (job): Promise<RenderSubmitOut> => ({ ...(await this.presenter.present(job)), ok: prepared.ok, violations: truncateViolations(prepared.violations) }),
    );
    if (!outcome.replayed && outcome.body.status === 'completed') await this.publishReused([outcome.body.id]);
    return outcome;
  }

  /**
   * Writes the job of a prepared render in the caller's transaction: reused at once when an
   * identical earlier render is still stored (RenderReuseService), else queued (or ingesting its sources)
   * with its estimate reserved. Call publishReused after commit for the jobs that came out completed.
   */
  async createJob(
    tx: EntityManager,
    workspace: Workspace,
    prepared: PreparedRender,
    requestHash: string | null,
    options: SubmitOptions,
    // The caller's own RenderReuseService.findEarlier answer, when it looked already (batches).
    known?: Job | null,
  ): Promise<Job> {
    return this.submission.write(tx, workspace, await this.jobWrite(tx, workspace, prepared, requestHash, options, known));
  }

  /** What createJob writes: a reused row, or a row with its estimate reserved, queued or waiting for its sources. */
  private async jobWrite(
    tx: EntityManager,
    workspace: Workspace,
    prepared: PreparedRender,
    requestHash: string | null,
    options: SubmitOptions,
    known?: Job | null,
  ): Promise<JobWrite> {
    const earlier = known !== undefined ? known : requestHash ? await this.reuse.findEarlier(tx, workspace.id, requestHash) : null;
    if (earlier) return this.reusedWrite(workspace, prepared.request, options, requestHash!, earlier);
    const isPreview = options.preview !== undefined;
    const reserved = isPreview ? 0 : prepared.cost.billedSeconds;
    return {
      reserve: isPreview || options.quotaReserved ? undefined : { allowance: 'render', seconds: reserved },
      // External files to copy first: the job waits in `ingesting` for the ingest queue.
      row: this.jobRow(workspace, prepared.request, options, prepared.ingest ? 'ingesting' : 'queued', {
        reservedSeconds: reserved,
        runLimitSeconds: runLimitSeconds(prepared.cost),
        requestHash,
      }),
      dispatch: prepared.ingest ? (ingestTx, job) => this.intake.enqueueIngest(ingestTx, job.id) : 'schedule',
    };
  }

  /**
   * A batch row identical to an earlier row (`leader`) of the same batch: queued without a queue
   * entry or reserved minutes, it ends when the leader does, with its output (JobRepository.complete).
   */
  createFollower(tx: EntityManager, workspace: Workspace, prepared: PreparedRender, requestHash: string, options: SubmitOptions, leader: Job): Promise<Job> {
    return this.submission.write(tx, workspace, {
      row: this.jobRow(workspace, prepared.request, options, 'queued', {
        reservedSeconds: 0,
        runLimitSeconds: runLimitSeconds(prepared.cost),
        requestHash,
        reuseOf: leader.id,
      }),
      dispatch: 'none',
    });
  }

  /** `render.completed` for renders that were reused at submit, as a worker sends it for rendered ones. */
  async publishReused(jobIds: string[]): Promise<void> {
    for (const id of jobIds) {
      const job = await this.jobRows.findById(id);
      if (job?.status === 'completed') await this.events.jobEvent('render.completed', job);
    }
  }

  /** A completed job handing out the earlier render's stored output; no render minutes are counted. */
  private reusedWrite(workspace: Workspace, request: RenderRequest, options: SubmitOptions, requestHash: string, earlier: Job): JobWrite {
    const now = new Date();
    const row = this.jobRow(workspace, request, options, 'completed', {
      reservedSeconds: 0,
      runLimitSeconds: null,
      requestHash,
      output: { ...earlier.output!, reused_from: earlier.id },
      outputKey: earlier.outputKey,
      outputSeconds: 0,
      progressPercent: 100,
      startedAt: now,
      completedAt: now,
    });
    return { row, dispatch: 'none' };
  }

  private jobRow(
    workspace: Workspace,
    request: RenderRequest,
    options: SubmitOptions,
    status: Extract<JobStatus, 'ingesting' | 'queued' | 'completed'>,
    fields: Partial<NewJob>,
  ): NewJob {
    return {
      id: newId('render'),
      workspaceId: workspace.id,
      kind: 'render',
      taskType: null,
      status,
      isPreview: options.preview !== undefined,
      preview: options.preview ?? null,
      // metadata is stored once, in its own column; the worker never needs it.
      request: { ...request, metadata: undefined } as Record<string, unknown>,
      metadata: (request.metadata ?? {}) as Record<string, unknown>,
      webhookUrl: request.webhook_url ?? null,
      projectId: options.projectId ?? null,
      projectVersion: options.projectVersion ?? null,
      batchId: options.batch?.id ?? null,
      batchRow: options.batch?.row ?? null,
      queueName: RENDER_QUEUE.name,
      ...fields,
    };
  }

  async get(workspace: Workspace, id: string): Promise<JobView> {
    return this.jobs.get(workspace, 'render', id);
  }

  async list(workspace: Workspace, query: { status?: JobStatus; project_id?: string; limit: number; cursor?: string }): Promise<Page<JobView>> {
    return this.jobs.list(
      workspace,
      'render',
      { isPreview: false, ...(query.status ? { status: query.status } : {}), ...(query.project_id ? { projectId: query.project_id } : {}) },
      query,
    );
  }

  async download(workspace: Workspace, id: string): Promise<{ url: string; expires_at: string }> {
    const job = await this.jobs.find(workspace, 'render', id);
    if (job.status === 'completed' && !job.outputKey && job.output?.expired_at) {
      throw new ApiError('not_found', `Render ${id}'s output expired on ${job.output.expired_at}: this service deletes rendered files after a retention period; render it again for a new one`, {
        expired_at: job.output.expired_at,
      });
    }
    if (job.status !== 'completed' || !job.outputKey) {
      throw new ApiError('not_found', `Render ${id} has no artifact${job.status === 'completed' ? '' : ` (status ${job.status})`}`);
    }
    return this.presenter.downloadUrl(job);
  }

  async cancel(workspace: Workspace, id: string): Promise<JobView> {
    const view = await this.jobs.cancel(workspace, 'render', id);
    if (view.batch_id) await this.events.jobCancelled((await this.jobRows.findById(id))!);
    return view;
  }
}
