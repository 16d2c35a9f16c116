import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Job as QueueJob } from 'pg-boss';
import { EventPublisher } from '../jobs/event-publisher';
import { QueueService } from '../infra/queue/queue.service';
import { BRAND_KIT_QUEUE } from './brand-kit-queue';
import { BrandKitRepository } from './brand-kit.repository';
import { toBrandKitView } from './brand-kit.view';
import { BrandExtractorService, EXTRACTION_LIMITS, ExtractionFailure } from './brand-extractor.service';

/** Attempts after the first when the browser itself crashes (a page's own failure is final). */
const EXTRACT_RETRY_LIMIT = 1;

/**
 * The `brand-kit-extract` queue's handler: extracting → ready | failed, exactly once (guarded
 * transitions), then `brand_kit.ready` with the kit either way.
 */
@Injectable()
export class BrandKitWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('BrandKits');

  constructor(
    private readonly queue: QueueService,
    private readonly kits: BrandKitRepository,
    private readonly extractor: BrandExtractorService,
    private readonly events: EventPublisher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.declare(BRAND_KIT_QUEUE, { retryLimit: EXTRACT_RETRY_LIMIT, retryDelay: 2, expireInSeconds: Math.ceil(EXTRACTION_LIMITS.pageMs / 1000) * 3 });
    this.queue.registerWorker(BRAND_KIT_QUEUE, (jobs) => this.handle(jobs), { localConcurrency: 1, batchSize: 1 });
  }

  private async handle(jobs: QueueJob<{ brand_kit_id: string }>[]): Promise<void> {
    for (const job of jobs) {
      const id = job.data.brand_kit_id;
      const kit = await this.kits.findById(id);
      if (kit?.status !== 'extracting') continue; // deleted, or ended by an earlier delivery
      let ended: boolean;
      try {
        ended = await this.kits.markReady(id, await this.extractor.extract(kit.sourceUrl));
      } catch (error) {
        if (!(error instanceof ExtractionFailure)) {
          if (job.retryCount < EXTRACT_RETRY_LIMIT) throw error;
          this.logger.error(`Brand kit ${id}: extraction crashed: ${(error as Error).message}`);
        }
        const failure = error instanceof ExtractionFailure ? { code: error.code, message: error.message } : { code: 'internal', message: 'The extraction failed unexpectedly' };
        ended = await this.kits.markFailed(id, failure);
      }
      const after = ended ? await this.kits.findById(id) : null;
      if (after) await this.events.brandKitReady(after.workspaceId, toBrandKitView(after));
    }
  }
}
