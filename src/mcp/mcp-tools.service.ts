import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Injectable, Logger, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AssetImportsService } from '../assets/asset-imports.service';
import { ImportAssetDto } from '../assets/dto/import-asset.dto';
import { csvBatchInput, jsonBatchInput } from '../batches/batch-input';
import { BATCH_LIMITS } from '../batches/batch-rows';
import type { BatchView } from '../batches/batch.view';
import { BatchesService } from '../batches/batches.service';
import { BatchCsvQueryDto, ListBatchesDto } from '../batches/dto/batch.dto';
import { BrandKitsService } from '../brand-kits/brand-kits.service';
import { CreateBrandKitDto, ListBrandKitsDto } from '../brand-kits/dto/brand-kit.dto';
import { ApiError, errorBody } from '../common/errors/api-error';
import { RateLimitService } from '../common/rate-limit/rate-limit.service';
import { RateLimitScope } from '../common/rate-limit/rate-limits';
import { closestMatch } from '../common/validation/suggest';
import { ApiValidationPipe } from '../common/validation/validation.pipe';
import { Storage } from '../infra/storage/storage';
import { TERMINAL_STATUSES } from '../jobs/job.entity';
import { JobStoreService } from '../jobs/job-store.service';
import type { JobView } from '../jobs/job.view';
import { PreviewsService } from '../previews/previews.service';
import { CreateProjectDto, GetProjectQueryDto, ListProjectsDto, ProjectOpsDto, ProjectRenderDto } from '../projects/dto/project.dto';
import { ProjectsService } from '../projects/projects.service';
import { ListRendersDto } from '../renders/dto/list-renders.dto';
import { RendersService } from '../renders/renders.service';
import { OpenApiDocumentService } from '../system/openapi-document.service';
import { SystemService } from '../system/system.service';
import { CaptionsQueryDto } from '../tasks/dto/captions-query.dto';
import { ListTasksDto } from '../tasks/dto/list-tasks.dto';
import { TranscribeRequestDto } from '../tasks/dto/transcribe-request.dto';
import { TasksService } from '../tasks/tasks.service';
import { CreateUploadDto } from '../uploads/dto/create-upload.dto';
import { UploadsService } from '../uploads/uploads.service';
import type { Workspace } from '../workspaces/workspace.entity';
import { MCP_TOOL_NAMES } from '../system/mcp-tool-names';
import { JsonSchema, OperationRef, operationBodySchema, operationInputSchema } from './operation-schemas';

/** What a tool call knows of its caller: the key's workspace and the client address (rate limits). */
export interface ToolCaller {
  workspace: Workspace;
  ip: string;
  signal: AbortSignal;
  /** Sends `notifications/progress` when the client asked for them (a progressToken); else nothing. */
  progress(percent: number, message: string): Promise<void>;
}

type Content =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string };

export interface ToolResult {
  [key: string]: unknown;
  content: Content[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  run(args: Record<string, unknown>, caller: ToolCaller): Promise<ToolResult>;
}

type Args = Record<string, unknown>;

/** How long a tool waits for a job at most when asked to wait (an MCP call is one HTTP request). */
const MAX_WAIT_SECONDS = 600;
const DEFAULT_WAIT_SECONDS = 300;
const POLL_MS = 400;

const waitProperties = {
  wait: { type: 'boolean', description: 'Wait for the job to finish, sending progress notifications; default false' },
  timeout_seconds: { type: 'integer', minimum: 1, maximum: MAX_WAIT_SECONDS, description: `How long to wait at most; default ${DEFAULT_WAIT_SECONDS}` },
} as const;

/**
 * The MCP tools. Each one is a REST operation run through the same Nest services, DTO validation
 * (ApiValidationPipe), rate limits and workspace scoping as its route; its input schema comes from
 * the OpenAPI document of that route. Services are looked up in the whole container (ModuleRef,
 * not strict) because the feature modules register them per role and do not export them all.
 */
@Injectable()
export class McpToolsService {
  private readonly logger = new Logger('McpToolsService');
  private readonly pipe = new ApiValidationPipe();
  private definitions: ToolDefinition[] | null = null;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly openApi: OpenApiDocumentService,
    private readonly limits: RateLimitService,
  ) {}

  private service<T>(type: Type<T> | (abstract new (...args: never[]) => T)): T {
    return this.moduleRef.get(type as Type<T>, { strict: false });
  }

  list(): ToolDefinition[] {
    if (!this.definitions) {
      const built = this.build(this.openApi.get());
      const names = built.map((t) => t.name).join(',');
      if (names !== MCP_TOOL_NAMES.join(',')) throw new Error(`MCP_TOOL_NAMES (${MCP_TOOL_NAMES.join(',')}) differs from the tools built (${names})`);
      this.definitions = built;
    }
    return this.definitions;
  }

  /** Runs a tool; every refusal becomes a tool error carrying the API's envelope. */
  async call(name: string, args: Args, caller: ToolCaller): Promise<ToolResult> {
    const tool = this.list().find((t) => t.name === name);
    try {
      if (!tool) {
        const close = closestMatch(name, this.list().map((t) => t.name));
        throw new ApiError('not_found', `No tool named "${name}"${close ? `; did you mean "${close}"?` : ''}`, {
          available: this.list().map((t) => t.name),
        });
      }
      checkArguments(tool.inputSchema, args);
      return await tool.run(args, caller);
    } catch (error) {
      if (error instanceof ApiError) return toolError(error.code, error.message, error.details);
      this.logger.error(`Tool ${name} failed: ${(error as Error).message}`, (error as Error).stack);
      return toolError('internal', 'Unexpected error; it has been logged');
    }
  }

  private build(doc: OpenAPIObject): ToolDefinition[] {
    const renders = () => this.service(RendersService);
    const previews = () => this.service(PreviewsService);
    const tasks = () => this.service(TasksService);
    const projects = () => this.service(ProjectsService);
    const kits = () => this.service(BrandKitsService);
    const batches = () => this.service(BatchesService);
    const op = (ref: OperationRef, extra?: Parameters<typeof operationInputSchema>[2]) => operationInputSchema(doc, ref, extra);
    const renderRequest = operationBodySchema(doc, ['post', '/v1/renders']);
    const previewOptions = previewVariants(operationBodySchema(doc, ['post', '/v1/preview']));
    const withRequest = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => {
      const { $defs, ...request } = renderRequest;
      return {
        type: 'object',
        properties: { request, ...properties },
        required: ['request', ...required],
        additionalProperties: false,
        ...($defs ? { $defs } : {}),
      };
    };

    return [
      {
        name: 'get_capabilities',
        title: 'Capabilities',
        description:
          'The machine-readable catalog (GET /v1/capabilities): formats, element JSON Schemas, motions, transitions, effects, fonts, limits and rate limits. Read it before writing a render request.',
        inputSchema: op(['get', '/v1/capabilities']),
        run: async () => ok(this.service(SystemService).capabilities() as Record<string, unknown>),
      },
      {
        name: 'validate_render',
        title: 'Validate a render request (free dry run)',
        description:
          'POST /v1/preview with preview.mode dry_run: checks `request` as a render submit would, writing nothing. Answers `ok`, every violation with its JSON pointer, the refusal a submit would get (`submit_error`, with validation items carrying `pointer` and `suggestion`), the timeline, the estimated render minutes, and which sources were checked (`sources_checked`, `sources`: `ok` says nothing of a source not checked).',
        inputSchema: withRequest({ check_sources: { type: 'boolean', description: 'Omitted: sources are checked and measured for up to 3 s (the answer lists those not checked); true: wait for all; false: read none' } }),
        run: async (args, caller) => {
          await this.limit('preview', caller);
          const preview = { mode: 'dry_run', ...(args.check_sources === undefined ? {} : { check_sources: args.check_sources }) };
          const out = await previews().preview(caller.workspace, { ...requestOf(args), preview });
          return ok(out.body as unknown as Record<string, unknown>);
        },
      },
      {
        name: 'preview_frame',
        title: 'Preview one frame',
        description:
          'Draws the frame of `request` at `time` seconds (POST /v1/preview, mode frame; never metered) and returns it as an image you can look at, plus the preview job.',
        inputSchema: withRequest(previewOptions.frame.properties, previewOptions.frame.required),
        run: async (args, caller) => this.previewImage(caller, args, 'frame'),
      },
      {
        name: 'preview_contact_sheet',
        title: 'Preview a contact sheet',
        description:
          'Draws `count` frames spread over the timeline of `request` as one grid image (POST /v1/preview, mode contact_sheet; never metered) and returns the image plus the preview job.',
        inputSchema: withRequest(previewOptions.contact_sheet.properties, previewOptions.contact_sheet.required),
        run: async (args, caller) => this.previewImage(caller, args, 'contact_sheet'),
      },
      {
        name: 'render',
        title: 'Render a video',
        description:
          'Submits `request` (POST /v1/renders; metered). Returns the job with `ok` and `violations`. With `wait: true` it follows the job, sending progress notifications, and returns the finished job and a short-lived `download_url`.',
        inputSchema: withRequest({ ...waitProperties, idempotency_key: { type: 'string', maxLength: 255, description: 'Same key + same request replays the first answer' } }),
        run: async (args, caller) => {
          await this.limit('render_submit', caller);
          const submitted = await renders().submit(caller.workspace, requestOf(args), { idempotencyKey: args.idempotency_key as string | undefined });
          return this.maybeWait(args, caller, submitted.body);
        },
      },
      {
        name: 'get_job',
        title: 'Get a job',
        description: 'One render (`render_…`) or task (`task_…`) of this workspace, with status, progress, output or result; adds `download_url` for a completed render.',
        inputSchema: op(['get', '/v1/renders/{id}'], { properties: {} }),
        run: async (args, caller) => {
          const job = await this.getJob(caller.workspace, String(args.id));
          return ok(await this.withDownload(caller.workspace, job));
        },
      },
      {
        name: 'list_renders',
        title: 'List renders',
        description: 'Render jobs of this workspace, newest first (GET /v1/renders; previews excluded). Pass `next_cursor` back as `cursor` for the next page.',
        inputSchema: op(['get', '/v1/renders']),
        run: async (args, caller) => {
          const query = (await this.pipe.transform(args, { type: 'query', metatype: ListRendersDto })) as ListRendersDto;
          return ok((await renders().list(caller.workspace, { ...query, limit: query.limit ?? 20 })) as unknown as Args);
        },
      },
      {
        name: 'list_tasks',
        title: 'List tasks',
        description: 'Task jobs (transcriptions) of this workspace, newest first (GET /v1/tasks).',
        inputSchema: op(['get', '/v1/tasks']),
        run: async (args, caller) => {
          const query = (await this.pipe.transform(args, { type: 'query', metatype: ListTasksDto })) as ListTasksDto;
          return ok((await tasks().list(caller.workspace, { ...query, limit: query.limit ?? 20 })) as unknown as Args);
        },
      },
      {
        name: 'cancel_job',
        title: 'Cancel a job',
        description: 'Cancels a queued or running render or task (POST /v1/renders/{id}/cancel or /v1/tasks/{id}/cancel); a finished job is a `conflict` error.',
        inputSchema: op(['post', '/v1/renders/{id}/cancel']),
        run: async (args, caller) => {
          const id = String(args.id);
          const job = id.startsWith('task_') ? await tasks().cancel(caller.workspace, id) : await renders().cancel(caller.workspace, id);
          return ok(job as unknown as Args);
        },
      },
      {
        name: 'create_upload',
        title: 'Reserve an upload slot',
        description:
          'POST /v1/uploads: returns `upload_url` (PUT the bytes there with the same Content-Type within an hour) and `source_url` to use in requests. The `vrs mcp` command adds `upload_file`, which uploads a local file in one step.',
        inputSchema: op(['post', '/v1/uploads']),
        run: async (args, caller) => {
          const body = (await this.pipe.transform(args.request, { type: 'body', metatype: CreateUploadDto })) as CreateUploadDto;
          return ok((await this.service(UploadsService).reserve(caller.workspace, body)) as unknown as Args);
        },
      },
      {
        name: 'upload_from_url',
        title: 'Upload a file from a URL',
        description:
          'POST /v1/workspace/assets: the service downloads the file at `request.url` (public addresses only; the upload size limit applies), probes and stores it, and returns the `present` asset with its `source_url` for render and transcribe requests. A URL this workspace already stored is answered at once.',
        inputSchema: op(['post', '/v1/workspace/assets'], {
          properties: { idempotency_key: { type: 'string', maxLength: 255, description: 'Same key + same request replays the first answer' } },
        }),
        run: async (args, caller) => {
          await this.limit('task_submit', caller);
          const body = (await this.pipe.transform(args.request, { type: 'body', metatype: ImportAssetDto })) as ImportAssetDto;
          const outcome = await this.service(AssetImportsService).importFromUrl(caller.workspace, body, args.idempotency_key as string | undefined, caller.signal);
          return ok(outcome.body as unknown as Args);
        },
      },
      {
        name: 'transcribe',
        title: 'Transcribe speech',
        description:
          'POST /v1/tasks/transcribe: starts a transcription of `request.source_url`. With `wait: true` it follows the task and returns it with the transcript on `result` (text, words with times, utterances).',
        inputSchema: op(['post', '/v1/tasks/transcribe'], { properties: { ...waitProperties } }),
        run: async (args, caller) => {
          await this.limit('task_submit', caller);
          const body = (await this.pipe.transform(args.request, { type: 'body', metatype: TranscribeRequestDto })) as TranscribeRequestDto;
          const submitted = await tasks().submitTranscribe(caller.workspace, body);
          return this.maybeWait(args, caller, submitted.body);
        },
      },
      {
        name: 'get_transcript',
        title: 'Get a transcript',
        description: 'The transcript of a finished transcribe task (`result` of GET /v1/tasks/{id}): text, words with start/end seconds, utterances, language.',
        inputSchema: op(['get', '/v1/tasks/{id}']),
        run: async (args, caller) => {
          const job = await tasks().get(caller.workspace, String(args.id));
          if (job.status !== 'completed') {
            throw new ApiError('conflict', `Task ${job.id} is ${job.status}; its transcript exists once it is completed`, { status: job.status });
          }
          return ok({ id: job.id, result: job.result });
        },
      },
      {
        name: 'get_captions',
        title: 'Get captions of a transcript',
        description:
          'GET /v1/tasks/{id}/captions: the words of a completed transcribe task as SubRip (`format: "srt"`) or WebVTT (`"vtt"`) text, broken into lines by `max_words`, `max_chars` and `max_lines` as a text element\'s `transcript` is.',
        inputSchema: op(['get', '/v1/tasks/{id}/captions']),
        run: async (args, caller) => {
          const { id, ...rest } = args;
          const query = (await this.pipe.transform(rest, { type: 'query', metatype: CaptionsQueryDto })) as CaptionsQueryDto;
          const captions = await tasks().captions(caller.workspace, String(id), query);
          return { content: [{ type: 'text', text: captions.body }], structuredContent: { id: String(id), format: query.format, content_type: captions.contentType, captions: captions.body } };
        },
      },
      {
        name: 'create_project',
        title: 'Create a project',
        description: 'POST /v1/projects: stores a render request (a template with {{variables}} and their defaults) as a project at version 1.',
        inputSchema: op(['post', '/v1/projects']),
        run: async (args, caller) => {
          const body = (await this.pipe.transform(args.request, { type: 'body', metatype: CreateProjectDto })) as CreateProjectDto;
          return ok((await projects().create(caller.workspace, body)) as unknown as Args);
        },
      },
      {
        name: 'get_project',
        title: 'Get a project',
        description: 'GET /v1/projects/{id}: the project with its summary; `view: "full"` adds the render request.',
        inputSchema: op(['get', '/v1/projects/{id}']),
        run: async (args, caller) => {
          const { id, ...rest } = args;
          const query = (await this.pipe.transform(rest, { type: 'query', metatype: GetProjectQueryDto })) as GetProjectQueryDto;
          return ok((await projects().get(caller.workspace, String(id), query.view ?? 'summary')) as unknown as Args);
        },
      },
      {
        name: 'list_projects',
        title: 'List projects',
        description: 'GET /v1/projects: projects of this workspace, newest first.',
        inputSchema: op(['get', '/v1/projects']),
        run: async (args, caller) => {
          const query = (await this.pipe.transform(args, { type: 'query', metatype: ListProjectsDto })) as ListProjectsDto;
          return ok((await projects().list(caller.workspace, query.limit ?? 20, query.cursor)) as unknown as Args);
        },
      },
      {
        name: 'edit_project',
        title: 'Edit a project with JSON Patch',
        description:
          'POST /v1/projects/{id}/ops: applies RFC 6902 operations to the project\'s render request, all or nothing, and bumps its version. A stale `base_version` is a conflict; an impossible op points at /ops/N.',
        inputSchema: op(['post', '/v1/projects/{id}/ops']),
        run: async (args, caller) => {
          const body = (await this.pipe.transform(args.request, { type: 'body', metatype: ProjectOpsDto })) as ProjectOpsDto;
          return ok((await projects().applyOps(caller.workspace, String(args.id), body)) as unknown as Args);
        },
      },
      {
        name: 'render_project',
        title: 'Render a project',
        description: "POST /v1/projects/{id}/renders: renders the project's current version with `request.variables` over its defaults; `wait` as for `render`.",
        inputSchema: op(['post', '/v1/projects/{id}/renders'], { properties: { ...waitProperties } }),
        run: async (args, caller) => {
          await this.limit('render_submit', caller);
          const body = (await this.pipe.transform(args.request ?? {}, { type: 'body', metatype: ProjectRenderDto })) as ProjectRenderDto;
          const submitted = await projects().render(caller.workspace, String(args.id), body, undefined);
          return this.maybeWait(args, caller, submitted.body);
        },
      },
      {
        name: 'extract_brand_kit',
        title: 'Extract a brand kit',
        description:
          'POST /v1/brand-kits: loads a web page and extracts its palette, fonts, logo and corner feel. Answers `extracting`; follow with get_brand_kit until `ready` (then use brand_kit_id and {{brand.…}} in a render).',
        inputSchema: op(['post', '/v1/brand-kits']),
        run: async (args, caller) => {
          const body = (await this.pipe.transform(args.request, { type: 'body', metatype: CreateBrandKitDto })) as CreateBrandKitDto;
          return ok((await kits().create(caller.workspace, body)) as unknown as Args);
        },
      },
      {
        name: 'get_brand_kit',
        title: 'Get a brand kit',
        description: 'GET /v1/brand-kits/{id}: status, palette, fonts, logo_url, corner_feel and per-field confidence.',
        inputSchema: op(['get', '/v1/brand-kits/{id}']),
        run: async (args, caller) => ok((await kits().get(caller.workspace, String(args.id))) as unknown as Args),
      },
      {
        name: 'list_brand_kits',
        title: 'List brand kits',
        description: 'GET /v1/brand-kits: brand kits of this workspace, newest first.',
        inputSchema: op(['get', '/v1/brand-kits']),
        run: async (args, caller) => {
          const query = (await this.pipe.transform(args, { type: 'query', metatype: ListBrandKitsDto })) as ListBrandKitsDto;
          return ok((await kits().list(caller.workspace, query.limit ?? 20, query.cursor)) as unknown as Args);
        },
      },
      {
        name: 'create_batch',
        title: 'Render a project once per row (batch)',
        description:
          "POST /v1/projects/{id}/batches: one render of the project per row of variables, given as `request.rows` (JSON) or as `csv` text (a header row of variable names, then one line per render; its options as top-level `output_filename`, `webhook_url`, `reuse`). Every row is checked first (a bad row is a validation error at /rows/N/…, a CSV one names its line and column); the whole batch must fit the month's render minutes. Identical rows render once. With `wait: true` it follows the batch until every row has ended, sending progress notifications.",
        inputSchema: batchInputSchema(op(['post', '/v1/projects/{id}/batches'], {
          properties: {
            csv: { type: 'string', maxLength: BATCH_LIMITS.csv_bytes, description: 'The rows as CSV text instead of request.rows' },
            idempotency_key: { type: 'string', maxLength: 255, description: 'Same key + same batch replays the first answer' },
            ...waitProperties,
          },
        })),
        run: async (args, caller) => {
          await this.limit('render_submit', caller);
          const { id, csv, request, idempotency_key, wait: _wait, timeout_seconds: _timeout, ...options } = args;
          const query = (await this.pipe.transform(options, { type: 'query', metatype: BatchCsvQueryDto })) as BatchCsvQueryDto;
          if ((csv === undefined) === (request === undefined)) {
            throw ApiError.validation([{ type: 'missing', loc: ['arguments'], msg: 'Give the rows either as request.rows or as csv text, not both', pointer: '/request' }]);
          }
          const input = typeof csv === 'string' ? csvBatchInput(Buffer.from(csv, 'utf8'), query) : jsonBatchInput(request, query);
          const created = await batches().create(caller.workspace, String(id), input, idempotency_key as string | undefined);
          return this.maybeWaitBatch(args, caller, created.body);
        },
      },
      {
        name: 'get_batch',
        title: 'Get a batch',
        description: 'GET /v1/batches/{id}: status, rows per state, progress and its renders in row order (paged by `limit` and `cursor`). With `wait: true` it follows the batch until every row has ended.',
        inputSchema: op(['get', '/v1/batches/{id}'], { properties: { ...waitProperties } }),
        run: async (args, caller) => {
          const { id, wait: _wait, timeout_seconds: _timeout, ...rest } = args;
          const query = (await this.pipe.transform(rest, { type: 'query', metatype: ListBatchesDto })) as ListBatchesDto;
          if (args.wait === true) await this.followBatch(caller, await batches().get(caller.workspace, String(id)), Number(args.timeout_seconds ?? DEFAULT_WAIT_SECONDS));
          const batch = await batches().get(caller.workspace, String(id));
          return ok({ ...batch, renders: await batches().rendersPage(caller.workspace, String(id), query.limit ?? 20, query.cursor) } as unknown as Args);
        },
      },
      {
        name: 'list_batches',
        title: 'List batches',
        description: 'GET /v1/batches: batches of this workspace, newest first, with their counts per state.',
        inputSchema: op(['get', '/v1/batches']),
        run: async (args, caller) => {
          const query = (await this.pipe.transform(args, { type: 'query', metatype: ListBatchesDto })) as ListBatchesDto;
          return ok((await batches().list(caller.workspace, query.limit ?? 20, query.cursor)) as unknown as Args);
        },
      },
      {
        name: 'cancel_batch',
        title: 'Cancel a batch',
        description: 'POST /v1/batches/{id}/cancel: the rows still queued are cancelled, rows already rendering finish; an ended batch is a `conflict` error.',
        inputSchema: op(['post', '/v1/batches/{id}/cancel']),
        run: async (args, caller) => ok((await batches().cancel(caller.workspace, String(args.id))) as unknown as Args),
      },
    ];
  }

  private async limit(scope: RateLimitScope, caller: ToolCaller): Promise<void> {
    await this.limits.enforce(scope, caller.ip);
  }

  private async getJob(workspace: Workspace, id: string): Promise<JobView> {
    return id.startsWith('task_') ? this.service(TasksService).get(workspace, id) : this.service(RendersService).get(workspace, id);
  }

  private async withDownload(workspace: Workspace, job: JobView): Promise<Args> {
    if (job.kind !== 'render' || job.status !== 'completed') return job as unknown as Args;
    const download = await this.service(RendersService).download(workspace, job.id);
    return { ...job, download_url: download.url, download_expires_at: download.expires_at };
  }

  /** Follows a job to a final status, reporting progress; the answer when it ends or the wait runs out. */
  private async follow(caller: ToolCaller, first: JobView, timeoutSeconds: number): Promise<JobView> {
    const deadline = Date.now() + timeoutSeconds * 1000;
    let job = first;
    let reported = -1;
    while (!TERMINAL_STATUSES.includes(job.status) && Date.now() < deadline && !caller.signal.aborted) {
      if (job.progress_percent !== reported) {
        reported = job.progress_percent;
        await caller.progress(job.progress_percent, `${job.status}${job.progress_stage ? ` (${job.progress_stage})` : ''}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      job = await this.getJob(caller.workspace, job.id);
    }
    if (TERMINAL_STATUSES.includes(job.status)) await caller.progress(100, job.status);
    return job;
  }

  private async maybeWait(args: Args, caller: ToolCaller, submitted: JobView & Args): Promise<ToolResult> {
    if (args.wait !== true) return ok(submitted);
    const job = await this.follow(caller, submitted, Number(args.timeout_seconds ?? DEFAULT_WAIT_SECONDS));
    const body = { ...(await this.withDownload(caller.workspace, job)), ...pickAdvice(submitted) };
    if (job.status === 'failed') return { ...ok(body), isError: true };
    if (!TERMINAL_STATUSES.includes(job.status)) body.note = `Still ${job.status} after the wait; follow it with get_job`;
    return ok(body);
  }

  /** Follows a batch until every row has ended (or the wait runs out), reporting its progress. */
  private async followBatch(caller: ToolCaller, first: BatchView, timeoutSeconds: number): Promise<BatchView> {
    const deadline = Date.now() + timeoutSeconds * 1000;
    let batch = first;
    let reported = -1;
    while (!batch.completed_at && Date.now() < deadline && !caller.signal.aborted) {
      if (batch.progress_percent !== reported) {
        reported = batch.progress_percent;
        const { counts } = batch;
        await caller.progress(batch.progress_percent, `${counts.completed} completed, ${counts.failed} failed, ${counts.processing} rendering, ${counts.queued} queued of ${batch.row_count}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      batch = await this.service(BatchesService).get(caller.workspace, batch.id);
    }
    if (batch.completed_at) await caller.progress(100, batch.status);
    return batch;
  }

  private async maybeWaitBatch(args: Args, caller: ToolCaller, created: BatchView): Promise<ToolResult> {
    if (args.wait !== true) return ok(created as unknown as Args);
    const batch = await this.followBatch(caller, created, Number(args.timeout_seconds ?? DEFAULT_WAIT_SECONDS));
    const body: Args = { ...batch };
    if (!batch.completed_at) body.note = `Still ${batch.status} after the wait; follow it with get_batch`;
    return ok(body);
  }

  private async previewImage(caller: ToolCaller, args: Args, mode: 'frame' | 'contact_sheet'): Promise<ToolResult> {
    await this.limit('preview', caller);
    const { request: _request, ...options } = args;
    const out = await this.service(PreviewsService).preview(caller.workspace, { ...requestOf(args), preview: { mode, ...options } });
    const job = await this.follow(caller, out.body as JobView, DEFAULT_WAIT_SECONDS);
    if (job.status !== 'completed') {
      const failure = job.error ?? { code: 'internal', message: `Preview ${job.id} is ${job.status}` };
      return toolError(failure.code, failure.message, { job });
    }
    const found = await this.service(JobStoreService).find(caller.workspace, 'render', job.id);
    const folder = await mkdtemp(path.join(tmpdir(), 'mcp-preview-'));
    try {
      const file = path.join(folder, 'preview');
      await this.service(Storage).downloadTo(found.outputKey!, file);
      const data = (await readFile(file)).toString('base64');
      const mimeType = found.outputKey!.endsWith('.jpg') ? 'image/jpeg' : 'image/png';
      const body = await this.withDownload(caller.workspace, job);
      return { content: [{ type: 'image', data, mimeType }, { type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }
}

function ok(body: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** A tool error: the API's envelope as JSON text, `isError` set (docs/decisions/0035-agents-and-terminals.md). */
export function toolError(code: string, message: string, details?: Record<string, unknown>): ToolResult {
  const envelope = errorBody(code, message, details);
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope, isError: true };
}

function requestOf(args: Args): Record<string, unknown> {
  const request = args.request;
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw ApiError.validation([{ type: 'dict_type', loc: ['arguments', 'request'], msg: 'request must be the JSON object of the API request body', pointer: '/request' }]);
  }
  return request as Record<string, unknown>;
}

function pickAdvice(submitted: Args): Args {
  return 'ok' in submitted ? { ok: submitted.ok, violations: submitted.violations } : {};
}

/**
 * Checks the tool's own arguments (which are present, which are unknown); what they carry is
 * validated by the service the tool calls, exactly as for the REST route.
 */
function checkArguments(schema: JsonSchema, args: Args): void {
  const known = Object.keys((schema.properties as object) ?? {});
  const problems = [];
  for (const name of (schema.required as string[] | undefined) ?? []) {
    if (args[name] === undefined) problems.push({ type: 'missing', loc: ['arguments', name], msg: `Argument ${name} is required`, pointer: `/${name}` });
  }
  for (const name of Object.keys(args)) {
    if (known.includes(name)) continue;
    const close = closestMatch(name, known);
    problems.push({
      type: 'extra_forbidden',
      loc: ['arguments', name],
      msg: `Unknown argument ${name}`,
      pointer: `/${name}`,
      ...(close ? { suggestion: close } : {}),
    });
  }
  if (problems.length) throw ApiError.validation(problems);
}

/** create_batch takes `request` (JSON rows) or `csv`: neither is required by the schema alone. */
function batchInputSchema(schema: JsonSchema): JsonSchema {
  return { ...schema, required: ((schema.required as string[] | undefined) ?? []).filter((name) => name !== 'request') };
}

/** The `preview` variants of the preview route's body schema, keyed by mode, without `mode` itself. */
function previewVariants(previewBody: JsonSchema): Record<'frame' | 'contact_sheet', { properties: Record<string, JsonSchema>; required: string[] }> {
  const preview = (previewBody.properties as Record<string, JsonSchema>).preview;
  const variants = ((preview.oneOf ?? preview.anyOf) as JsonSchema[] | undefined) ?? [];
  const pick = (mode: string) => {
    const variant = variants.find((v) => ((v.properties as Record<string, JsonSchema>)?.mode as JsonSchema | undefined)?.const === mode);
    if (!variant) throw new Error(`The preview schema has no ${mode} variant`);
    const { mode: _mode, ...properties } = variant.properties as Record<string, JsonSchema>;
    return { properties, required: ((variant.required as string[] | undefined) ?? []).filter((name) => name !== 'mode') };
  };
  return { frame: pick('frame'), contact_sheet: pick('contact_sheet') };
}
