import { Inject, Injectable } from '@nestjs/common';
import { captionPages, CAPTION_DEFAULTS, toSrt, toVtt } from '../../composition/src/schema';
import { MediaIntakeService } from '../assets/media-intake.service';
import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { MAX_JOB_ATTEMPT_SECONDS } from '../common/limits';
import { Page } from '../common/pagination/pagination';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { JobStatus } from '../jobs/job.entity';
import { JobPresenterService } from '../jobs/job-presenter.service';
import { JobRepository } from '../jobs/job.repository';
import { JobStoreService } from '../jobs/job-store.service';
import { JobSubmissionService } from '../jobs/job-submission.service';
import { JobView } from '../jobs/job.view';
import { WebhooksService } from '../webhooks/webhooks.service';
import { Workspace } from '../workspaces/workspace.entity';
import { CaptionsQueryDto } from './dto/captions-query.dto';
import { RemoveBackgroundRequestDto, TranscribeRequestDto } from './dto/transcribe-request.dto';
import { ENGINE_CAPABILITIES, TaskType, taskTypeOfPath } from './task-types';
import { assertEngineCanDo, transcribeOptionsOf } from './transcribe/transcribe-options';
import { TRANSCRIBE_QUEUE } from './transcribe/transcribe-queue';

/** One attempt of a transcription: start-up plus three times the audio, well above the recogniser's real-time factor (docs/performance.md). */
export function transcribeRunLimitSeconds(audioSeconds: number): number {
  return Math.min(MAX_JOB_ATTEMPT_SECONDS, Math.ceil(300 + audioSeconds * 3));
}

/** Tasks API: submit, list, read, cancel. Transcription minutes are a monthly allowance of the plan. */
@Injectable()
export class TasksService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly submission: JobSubmissionService,
    private readonly presenter: JobPresenterService,
    private readonly jobs: JobStoreService,
    private readonly jobRows: JobRepository,
    private readonly intake: MediaIntakeService,
    private readonly webhooks: WebhooksService,
  ) {}

  async submitTranscribe(workspace: Workspace, body: TranscribeRequestDto, idempotencyKey?: string): Promise<{ replayed: boolean; body: JobView }> {
    // Every check runs before anything is written: a 422 leaves no job and consumes no key.
    this.webhooks.assertJobWebhookUrl(body.webhook_url);
    const engine = this.config.transcribe.engine;
    assertEngineCanDo(transcribeOptionsOf(body), engine, ENGINE_CAPABILITIES[engine]);
    const known = await this.intake.prepareSource(workspace, { url: body.source_url, pointer: '/source_url', kind: 'audio' });
    // An external file's length is known only once fetched: the worker confirms the reservation then.
    const audioSeconds = known?.duration ?? 0;
    const request = { ...body } as Record<string, unknown>;

    return this.submission.submit(
      workspace,
      { scope: 'tasks', key: idempotencyKey, payload: { task_type: 'transcribe', ...request } },
      () => ({
        reserve: { allowance: 'transcribe', seconds: audioSeconds, lengthUnknown: known?.duration == null },
        row: {
          id: newId('task'),
          workspaceId: workspace.id,
          kind: 'task',
          taskType: 'transcribe',
          status: 'queued',
          isPreview: false,
          // metadata is stored once, in its own column.
          request: { ...request, metadata: undefined },
          metadata: body.metadata ?? {},
          webhookUrl: body.webhook_url ?? null,
          projectId: null,
          queueName: TRANSCRIBE_QUEUE.name,
          reservedSeconds: audioSeconds,
          runLimitSeconds: audioSeconds > 0 ? transcribeRunLimitSeconds(audioSeconds) : null,
        },
      }),
      // Read back after the queue entry is written, so the answer is the row as committed.
      async (job, tx) => this.presenter.present((await this.jobRows.findById(job.id, tx))!),
    );
  }

  /** The body is validated like a supported type's, then refused: nothing here removes backgrounds yet. */
  submitRemoveBackground(body: RemoveBackgroundRequestDto): never {
    this.webhooks.assertJobWebhookUrl(body.webhook_url);
    throw this.unsupported('remove_background');
  }

  /** `POST /v1/tasks/{type}` for any other type: in the catalog but unsupported → 422, unknown → 404. */
  submitOther(segment: string): never {
    const type = taskTypeOfPath(segment);
    if (!type) throw new ApiError('not_found', `Unknown task type "${segment}"; GET /v1/capabilities lists the task types`);
    throw this.unsupported(type);
  }

  private unsupported(type: TaskType): ApiError {
    return new ApiError('unsupported_feature', `The task type ${type} is not supported by this service yet; GET /v1/capabilities lists the task types`, {
      task_type: type,
    });
  }

  async get(workspace: Workspace, id: string): Promise<JobView> {
    return this.jobs.get(workspace, 'task', id);
  }

  async list(workspace: Workspace, query: { task_type?: TaskType; status?: JobStatus; limit: number; cursor?: string }): Promise<Page<JobView>> {
    return this.jobs.list(
      workspace,
      'task',
      { ...(query.task_type ? { taskType: query.task_type } : {}), ...(query.status ? { status: query.status } : {}) },
      query,
    );
  }

  /** A transcribe task has no file (its data is on `result`), so this is 404 for it. */
  async download(workspace: Workspace, id: string): Promise<{ url: string; expires_at: string }> {
    const job = await this.jobs.find(workspace, 'task', id);
    if (job.status !== 'completed' || !job.outputKey) {
      const why = job.taskType === 'transcribe' ? 'a transcribe task has no file; its transcript is on `result`' : `status ${job.status}`;
      throw new ApiError('not_found', `Task ${id} has no artifact (${why})`);
    }
    return this.presenter.downloadUrl(job);
  }

  /** Captions of a completed transcribe task, with the line breaking of a text element's `transcript`. */
  async captions(workspace: Workspace, id: string, query: CaptionsQueryDto): Promise<{ contentType: string; body: string }> {
    const job = await this.jobs.find(workspace, 'task', id);
    if (job.taskType !== 'transcribe') throw new ApiError('not_found', `Task ${id} is not a transcribe task; only transcripts have captions`);
    if (job.status !== 'completed') throw new ApiError('conflict', `Task ${id} is ${job.status}; captions exist once it is completed`, { status: job.status });
    const words = Array.isArray(job.result?.words) ? (job.result.words as { text: string; start: number; end: number }[]) : [];
    const pages = captionPages(
      words.map((word) => ({ text: word.text, start: word.start / 1000, end: word.end / 1000 })),
      { maxWords: query.max_words ?? CAPTION_DEFAULTS.maxWords, maxChars: query.max_chars ?? CAPTION_DEFAULTS.maxChars, maxLines: query.max_lines ?? CAPTION_DEFAULTS.maxLines },
    );
    return query.format === 'srt'
      ? { contentType: 'application/x-subrip; charset=utf-8', body: toSrt(pages) }
      : { contentType: 'text/vtt; charset=utf-8', body: toVtt(pages) };
  }

  cancel(workspace: Workspace, id: string): Promise<JobView> {
    return this.jobs.cancel(workspace, 'task', id);
  }
}
