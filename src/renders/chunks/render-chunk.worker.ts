import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { QueueService } from '../../infra/queue/queue.service';
import { isHandBack } from '../../infra/queue/hand-back';
import { ChunkRendererService } from './chunk-renderer.service';
import {
  RENDER_CHUNK_DEAD_LETTER_QUEUE,
  RENDER_CHUNK_QUEUE,
  RENDER_CHUNK_RETRY_DELAY_SECONDS,
  RENDER_CHUNK_RETRY_LIMIT,
} from './render-chunk-queue';
import { RenderChunkRepository } from './render-chunk.repository';

/**
 * The `render-chunk` queue's handler, kept thin: ChunkRendererService does the work. A worker that dies
 * mid-chunk stops heart-beating; pg-boss then hands the entry to another worker, which claims the
 * chunk again once its row's heartbeat is as stale. An entry whose every attempt died fails its chunk.
 */
@Injectable()
export class RenderChunkWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('RenderChunkWorker');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: QueueService,
    private readonly renderer: ChunkRendererService,
    private readonly chunks: RenderChunkRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.declareWithDeadLetter(RENDER_CHUNK_QUEUE, RENDER_CHUNK_DEAD_LETTER_QUEUE, {
      retryLimit: RENDER_CHUNK_RETRY_LIMIT,
      retryDelay: RENDER_CHUNK_RETRY_DELAY_SECONDS,
      expireInSeconds: 3600,
      heartbeatSeconds: this.config.render.heartbeatSeconds,
    });
    if (!this.queue.runsWorkers) return;
    this.queue.registerWorker(
      RENDER_CHUNK_QUEUE,
      async (entries) => {
        for (const entry of entries) {
          const { job_id: jobId, index } = entry.data;
          const lastAttempt = (entry.retryCount ?? 0) >= RENDER_CHUNK_RETRY_LIMIT;
          try {
            await this.renderer.run(jobId, index, entry.signal ?? new AbortController().signal, lastAttempt);
          } catch (error) {
            if (isHandBack(entry.signal)) throw error; // the queue takes it back without using an attempt
            this.logger.warn(`Chunk ${index} of ${jobId}, attempt ${(entry.retryCount ?? 0) + 1}, failed: ${(error as Error).stack ?? error}`);
            throw error; // pg-boss retries this chunk alone
          }
        }
      },
      // One chunk at a time per render slot, like renders: Chromium saturates the cores with one.
      { localConcurrency: this.config.render.concurrency, batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
    );
    this.queue.registerWorker(RENDER_CHUNK_DEAD_LETTER_QUEUE, async (entries) => {
      for (const dead of entries) {
        await this.chunks.fail(dead.data.job_id, dead.data.index, { code: 'internal', message: `Every one of ${RENDER_CHUNK_RETRY_LIMIT + 1} attempts died` });
      }
    });
  }
}
