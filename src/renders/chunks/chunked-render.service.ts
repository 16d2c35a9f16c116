import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { TransactionRepository } from '../../infra/database/transaction.repository';
import { QueueService } from '../../infra/queue/queue.service';
import { ObjectNotFoundError, Storage } from '../../infra/storage/storage';
import { JobFailure } from '../../jobs/job-failure';
import { Job } from '../../jobs/job.entity';
import type { RenderPlan } from '../engine/planner/render-plan';
import { RemotionRenderer, RenderArgs, RenderReport } from '../engine/remotion-renderer';
import { joinSegments } from '../engine/encode/join-segments';
import { muxAacAudio } from '../engine/sound/sound-maker';
import { RENDER_CHUNK_QUEUE } from './render-chunk-queue';
import { RenderChunk, RenderChunkRepository } from './render-chunk.repository';

/** Share of the render's progress the chunks take; the sound, the join and the mux take the rest. */
const CHUNKS_SHARE = 0.9;
const POLL_INTERVAL_MS = 500;

export { splitFrames } from '../engine/planner/plan-render';

/** Where a chunk's file is stored until the join: under the parent's workspace, by job and index. */
export function chunkKey(job: Pick<Job, 'workspaceId' | 'id'>, index: number): string {
  return `${chunkFolder(job)}/${index}.mp4`;
}

export function chunkFolder(job: Pick<Job, 'workspaceId' | 'id'>): string {
  return `${job.workspaceId}/chunks/${job.id}`;
}

/**
 * The parent side of a split render (RENDER_CHUNK_FRAMES): records one chunk per frame range and
 * queues each as a `render-chunk` job any worker can take, waits for them (the job stays
 * cancellable and its progress is the share of frames done), mixes the sound once for the whole
 * timeline, joins the chunks' H.264 streams without re-encoding and muxes the sound as the browser
 * path does. A retried parent finds its chunks already done and queues only the others.
 */
@Injectable()
export class ChunkedRenderService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly chunks: RenderChunkRepository,
    private readonly queue: QueueService,
    private readonly storage: Storage,
    private readonly renderer: RemotionRenderer,
  ) {}

  async render(job: Job, args: RenderArgs, plan: RenderPlan): Promise<RenderReport> {
    const { resolved, signal } = args;
    const total = resolved.durationInFrames;
    const ranges = plan.chunks ?? [[0, total - 1]];
    const { staleKeys } = await this.transactions.run(async (tx) => {
      const planned = await this.chunks.plan(tx, job.id, ranges);
      // Queued with the rows: a chunk is never recorded without its queue entry.
      for (const chunk of planned.chunks) {
        if (chunk.state !== 'done') await this.queue.sendInTransaction(tx, RENDER_CHUNK_QUEUE, { job_id: job.id, index: chunk.index });
      }
      return planned;
    });
    await Promise.all(staleKeys.map((key) => this.storage.delete(key)));
    const workDir = path.dirname(args.outputPath);
    const audioPath = path.join(workDir, 'audio.wav');
    // The sound is mixed while the chunks are drawn: it is off the path from the last chunk to the file.
    const mixing = this.renderer.makeSound(args, plan, audioPath);
    // Both settle before a failure is thrown: nothing writes into the work folder afterwards.
    const [waited, mixed] = await Promise.allSettled([
      this.waitForChunks(job.id, total, signal, (fraction) => args.onProgress('compositing', CHUNKS_SHARE * fraction)),
      mixing,
    ]);
    if (waited.status === 'rejected') throw waited.reason;
    if (mixed.status === 'rejected') throw mixed.reason;
    const [done, sound] = [waited.value, mixed.value];
    const joinStarted = performance.now();
    args.onProgress('encoding', CHUNKS_SHARE);
    const videoPath = path.join(workDir, 'joined.mp4');
    await this.join(done, workDir, videoPath, signal);
    await muxAacAudio(videoPath, audioPath, args.outputPath, signal);
    args.onProgress('encoding', 1);
    return {
      plan,
      measured: {
        chunks: done.length,
        chunk_seconds: done.map((chunk) => chunk.renderSeconds ?? 0),
        chunk_workers: done.map((chunk) => chunk.workerId),
        join_seconds: Math.round((performance.now() - joinStarted) / 10) / 100,
        ...(sound ?? {}),
      },
    };
  }

  /**
   * Once the joined render is stored, its chunk files go (not before: a parent retried after a
   * failed upload joins the same chunks again). The rows stay as the record of how it was drawn.
   */
  async discardFiles(job: Pick<Job, 'workspaceId' | 'id'>): Promise<void> {
    await this.storage.deleteFolder(chunkFolder(job));
    await this.chunks.forgetFiles(job.id);
  }

  /**
   * Stops the job's unfinished chunks (their workers see it within a second) and deletes every
   * chunk file; nothing to do for a job that was not split.
   */
  async abandon(job: Pick<Job, 'workspaceId' | 'id'>): Promise<void> {
    if (!(await this.chunks.exist(job.id))) return;
    const keys = await this.chunks.cancel(job.id);
    await Promise.all(keys.map((key) => this.storage.delete(key)));
    await this.storage.deleteFolder(chunkFolder(job));
    await this.chunks.forgetFiles(job.id);
  }

  /** Until every chunk is done; a chunk failed for good fails the job with its error. */
  private async waitForChunks(jobId: string, total: number, signal: AbortSignal, progress: (fraction: number) => void): Promise<RenderChunk[]> {
    for (;;) {
      signal.throwIfAborted();
      const chunks = await this.chunks.list(jobId);
      const failed = chunks.find((chunk) => chunk.state === 'failed');
      if (failed) {
        const frames = `frames ${failed.firstFrame}–${failed.lastFrame}`;
        throw failed.error && failed.error.code !== 'internal'
          ? new JobFailure(failed.error.code, failed.error.message)
          : new JobFailure('internal', `Render failed unexpectedly in chunk ${failed.index} (${frames}) after ${failed.attempts} attempts; the error has been logged`);
      }
      if (chunks.some((chunk) => chunk.state === 'cancelled')) throw new Error(`Chunks of ${jobId} were cancelled while it runs`);
      const framesDone = chunks.filter((chunk) => chunk.state === 'done').reduce((sum, chunk) => sum + chunk.lastFrame - chunk.firstFrame + 1, 0);
      progress(framesDone / total);
      if (framesDone === total) return chunks;
      await sleep(POLL_INTERVAL_MS, undefined, { signal });
    }
  }

  /** The chunks' files brought in and joined as a whole render joins its segments (joinSegments). */
  private async join(chunks: RenderChunk[], workDir: string, outputPath: string, signal: AbortSignal): Promise<void> {
    const files: string[] = [];
    for (const chunk of chunks) {
      const file = path.join(workDir, `chunk-${chunk.index}.mp4`);
      try {
        await this.storage.downloadTo(chunk.outputKey!, file);
      } catch (error) {
        // Its file is gone: the chunk is drawn again when the queue retries the job.
        if (error instanceof ObjectNotFoundError) await this.chunks.reset(chunk.jobId, chunk.index);
        throw error;
      }
      files.push(file);
    }
    await joinSegments(files, path.join(workDir, 'chunks.txt'), outputPath, signal);
  }
}
