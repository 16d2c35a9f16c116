import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { validateRenderRequest } from '../../../composition/src/schema';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Storage } from '../../infra/storage/storage';
import { JobFailure } from '../../jobs/job-failure';
import { isHandBack } from '../../infra/queue/hand-back';
import { isStorageFull } from '../../common/errors/storage-full';
import { storageFailureMessage, storageUnavailableOf } from '../../common/errors/storage-unavailable';
import { Job } from '../../jobs/job.entity';
import { JobRepository } from '../../jobs/job.repository';
import { OutputFormat, planOutput } from '../engine/output-formats';
import { RemotionRenderer } from '../engine/remotion-renderer';
import { RenderFailure } from '../render-failure';
import { RenderPipelineService } from '../render-pipeline.service';
import { chunkFolder, chunkKey } from './chunked-render.service';
import { RENDER_CHUNK_RETRY_LIMIT } from './render-chunk-queue';
import { RenderChunkRepository } from './render-chunk.repository';
import { WorkerPresenceService } from './worker-presence.service';

/**
 * `done`: rendered and stored. `skipped`: nothing to do (done already, alive in another worker, or
 * the parent is no longer running). `cancelled`: the parent ended while it rendered. `failed`: an
 * error no retry can fix, recorded on the chunk (the parent fails with it).
 */
export type ChunkOutcome = 'done' | 'skipped' | 'cancelled' | 'failed';

const HEARTBEAT_INTERVAL_MS = 1000;

/**
 * One chunk of a split render, testable without the queue: loads the parent job, validates its
 * request again, brings its inputs in (stored copies), renders the chunk's frame range without
 * sound in the parent's encoder settings, stores the file under the parent's workspace and marks
 * the chunk done. While it runs it beats on the chunk's row every second; when the parent is no
 * longer processing (cancelled) it stops.
 */
@Injectable()
export class ChunkRendererService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobRepository,
    private readonly chunks: RenderChunkRepository,
    private readonly pipeline: RenderPipelineService,
    private readonly renderer: RemotionRenderer,
    private readonly storage: Storage,
    private readonly presence: WorkerPresenceService,
  ) {}

  /**
   * Throws after an unexpected error (the chunk is back to pending, for the queue to retry), unless
   * `lastAttempt`: then the chunk is marked failed and the error thrown still (for the logs).
   */
  async run(jobId: string, index: number, signal: AbortSignal, lastAttempt: boolean): Promise<ChunkOutcome> {
    const job = await this.jobs.findById(jobId);
    if (!job || job.status !== 'processing') return 'skipped';
    // A row still `processing` whose heartbeat stopped as long as the queue's limit: its worker died.
    const chunk = await this.chunks.claim(jobId, index, this.config.render.heartbeatSeconds, this.presence.id);
    if (!chunk) return 'skipped';
    const abort = new AbortController();
    const onQueueAbort = () => abort.abort(signal.reason);
    signal.addEventListener('abort', onQueueAbort, { once: true });
    let parentEnded = false;
    const beat = setInterval(() => {
      void Promise.all([this.chunks.heartbeat(jobId, index), this.jobs.hasStatus(jobId, 'processing')])
        .then(([alive, parentRuns]) => {
          if (alive && parentRuns) return;
          parentEnded = true;
          abort.abort(new Error('cancelled'));
        })
        .catch(() => undefined);
    }, HEARTBEAT_INTERVAL_MS);
    const workRoot = path.join(this.config.dataDir, 'work');
    await mkdir(workRoot, { recursive: true });
    const workDir = await mkdtemp(path.join(workRoot, `${jobId}-chunk-${index}-`));
    let unmount = () => undefined as void;
    try {
      // The queue is a trust boundary: the stored request is validated again before use.
      const parsed = validateRenderRequest(job.request);
      if (!parsed.ok) throw new RenderFailure('invalid_request', `Stored request is invalid: ${parsed.errors[0].msg}`);
      const prepared = await this.pipeline.prepare(job, parsed.value, workDir, abort.signal, () => undefined, { confirmCost: false });
      unmount = prepared.unmount;
      const { props, resolved } = prepared;
      if (chunk.lastFrame >= resolved.durationInFrames) {
        throw new RenderFailure('internal', `Chunk ${index} ends at frame ${chunk.lastFrame}, past the timeline's ${resolved.durationInFrames} frames`);
      }
      const plan = planOutput(resolved.outputFormat as OutputFormat, resolved.alpha);
      const outputPath = path.join(workDir, `chunk.${plan.extension}`);
      const started = performance.now();
      await this.renderer.render({
        props,
        resolved,
        plan,
        outputPath,
        signal: abort.signal,
        onProgress: () => undefined,
        frameRange: [chunk.firstFrame, chunk.lastFrame],
        muted: true,
      });
      const key = chunkKey(job, index);
      await this.storage.putFile(key, outputPath, plan.contentType);
      const seconds = Math.round((performance.now() - started) / 10) / 100;
      if (await this.chunks.finish(jobId, index, key, seconds)) return 'done';
      await this.storage.delete(key); // cancelled while finishing
      await this.discardIfParentEnded(job);
      return 'cancelled';
    } catch (error) {
      if (parentEnded) {
        await this.discardIfParentEnded(job);
        return 'cancelled';
      }
      if (error instanceof JobFailure) {
        await this.chunks.fail(jobId, index, { code: error.code, message: error.message });
        return 'failed';
      }
      if (isStorageFull(error) && !isHandBack(signal)) {
        await this.chunks.fail(jobId, index, { code: 'storage_full', message: "Render failed: the service's storage is full; try again once space is freed" });
        return 'failed';
      }
      const storage = storageUnavailableOf(error);
      if (storage && !isHandBack(signal) && (storage.permanent || lastAttempt)) {
        await this.chunks.fail(jobId, index, { code: 'storage_unavailable', message: storageFailureMessage('Render', storage, storage.permanent ? 1 : RENDER_CHUNK_RETRY_LIMIT + 1) });
        return 'failed';
      }
      const failure = { code: 'internal', message: (error as Error).message ?? String(error) };
      // A chunk handed back at a shutdown is not failing: it waits, pending, for another worker.
      if (lastAttempt && !isHandBack(signal)) await this.chunks.fail(jobId, index, failure);
      else await this.chunks.release(jobId, index, failure);
      throw error;
    } finally {
      clearInterval(beat);
      signal.removeEventListener('abort', onQueueAbort);
      unmount();
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /**
   * The parent's own worker may be gone too, or have cleaned up before this chunk stopped: the
   * job's chunk files are not left behind.
   */
  private async discardIfParentEnded(job: Pick<Job, 'workspaceId' | 'id'>): Promise<void> {
    if (await this.jobs.hasStatus(job.id, 'processing')) return;
    const keys = await this.chunks.cancel(job.id);
    await Promise.all(keys.map((key) => this.storage.delete(key)));
    await this.storage.deleteFolder(chunkFolder(job));
  }
}
