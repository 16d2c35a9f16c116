import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Job as QueueJob } from 'pg-boss';
import { QueueService } from '../infra/queue/queue.service';
import { AssetProbeService } from './asset-probe.service';
import { AssetRepository } from './asset.repository';
import { ASSET_PROBE_QUEUE } from './intake-queues';

/** Attempts after the first when reading the bytes fails unexpectedly (storage or database trouble). */
const PROBE_RETRY_LIMIT = 3;

/** The `asset-probe` queue's handler, kept thin: AssetProbeService reads the bytes. */
@Injectable()
export class AssetProbeWorker implements OnApplicationBootstrap {
  constructor(
    private readonly rows: AssetRepository,
    private readonly queue: QueueService,
    private readonly probes: AssetProbeService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.declare(ASSET_PROBE_QUEUE, { retryLimit: PROBE_RETRY_LIMIT, retryDelay: 5, expireInSeconds: 15 * 60 });
    this.queue.registerWorker(ASSET_PROBE_QUEUE, (jobs) => this.handle(jobs), { localConcurrency: 2, batchSize: 1 });
  }

  private async handle(jobs: QueueJob<{ asset_id: string }>[]): Promise<void> {
    for (const job of jobs) {
      const assetId = job.data.asset_id;
      try {
        await this.probes.probe(assetId);
      } catch (error) {
        if (job.retryCount < PROBE_RETRY_LIMIT) throw error;
        // Out of attempts: back to `reserved`, so the next read of the asset or request naming it starts a new probe.
        await this.rows.backToReserved(assetId);
      }
    }
  }
}
