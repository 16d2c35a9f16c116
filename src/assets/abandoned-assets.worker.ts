import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { z } from 'zod';
import { defineQueue } from '../infra/queue/queue-definition';
import { QueueService } from '../infra/queue/queue.service';
import { Storage } from '../infra/storage/storage';
import { UPLOAD_URL_TTL_SECONDS } from '../common/limits';
import { AssetRepository } from './asset.repository';
import { AssetsService } from './assets.service';

/**
 * A reserved slot with no bytes this long after reservation is abandoned. Its URL died after an
 * hour; the rest leaves an upload begun in the URL's last minute time to finish (GCS takes a PUT
 * begun before expiry; 5 GiB in three hours is about 4 Mbit/s).
 */
export const ABANDONED_SLOT_SECONDS = UPLOAD_URL_TTL_SECONDS + 3 * 3600;
/** Slots looked at per sweep: each costs a storage stat; the next sweep takes the rest. */
const SWEEP_BATCH = 500;

export const ABANDONED_ASSET_SWEEP_QUEUE = defineQueue('abandoned-asset-sweep', z.strictObject({}));
/** Every 15 minutes; pg-boss's cron runs on whichever process is up and a worker takes it. */
const SWEEP_CRON = '*/15 * * * *';

/**
 * An external copy whose copier died (its lease lapsed) and that no job has taken over since this
 * long: every job that needed it has failed or moved on, and its bytes were never stored.
 */
export const ABANDONED_COPY_SECONDS = 3600;

/**
 * Asset rows that will never get their bytes. Upload slots whose bytes never came are deleted (the
 * row would stay forever, and a reserved image stay listed); bytes that did land unseen (a GCS
 * upload nobody confirmed) are not abandoned: the sweep starts their probe instead. Copies left
 * `ingesting` by a crashed copier are deleted too. Runs at every start (so a crash-restart cleans
 * up at once) and on a pg-boss schedule in the worker roles.
 */
@Injectable()
export class AbandonedAssetsWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('AbandonedAssetsWorker');

  constructor(
    private readonly rows: AssetRepository,
    private readonly storage: Storage,
    private readonly queue: QueueService,
    private readonly assets: AssetsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.declare(ABANDONED_ASSET_SWEEP_QUEUE, { retryLimit: 0, expireInSeconds: 15 * 60 });
    await this.queue.instance.schedule(ABANDONED_ASSET_SWEEP_QUEUE.name, SWEEP_CRON, {});
    this.queue.registerWorker(ABANDONED_ASSET_SWEEP_QUEUE, async () => {
      await this.sweep();
    });
    this.sweep().catch((error: Error) => this.logger.warn(`Sweeping abandoned assets failed: ${error.message}`));
  }

  /** Returns the ids of the assets it deleted. */
  async sweep(): Promise<string[]> {
    return [...(await this.sweepSlots()), ...(await this.sweepCopies())];
  }

  private async sweepCopies(): Promise<string[]> {
    // Guarded by the lease: a job that takes the copy over renews it first, and then keeps it.
    const rows = await this.rows.deleteLapsedCopies(ABANDONED_COPY_SECONDS);
    for (const row of rows) await this.storage.delete(row.storage_key);
    if (rows.length > 0) this.logger.log(`Deleted ${rows.length} external copies whose copier died`);
    return rows.map((row) => row.id);
  }

  private async sweepSlots(): Promise<string[]> {
    const deleted: string[] = [];
    for (const asset of await this.rows.staleSlots(ABANDONED_SLOT_SECONDS, SWEEP_BATCH)) {
      if (await this.storage.stat(asset.storageKey)) {
        await this.assets.refreshReserved(asset);
        continue;
      }
      // Guarded: bytes announced meanwhile (the row left `reserved`) keep the asset.
      if (!(await this.rows.deleteStaleSlot(asset.id, ABANDONED_SLOT_SECONDS))) continue;
      // Bytes landing between the stat and the delete would have no row: remove them too.
      await this.storage.delete(asset.storageKey);
      deleted.push(asset.id);
    }
    if (deleted.length > 0) this.logger.log(`Deleted ${deleted.length} upload slots whose bytes never arrived`);
    return deleted;
  }
}
