import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig, RetentionConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Storage } from '../infra/storage/storage';
import { RetentionRepository } from './retention.repository';

/** Rows looked at per query; a sweep pages through all of them. */
const BATCH = 200;
/** Session lock held while one sweep runs, so two instances never sweep at once. */
const SWEEP_LOCK = 'retention-sweep';

export interface SweepReport {
  renders_expired: number;
  assets_deleted: number;
  /** Files a queued or running job still names: kept for a later sweep. */
  kept_in_use: number;
}

/**
 * Deletes what the operator's retention allows (RENDER_RETENTION_DAYS from a render's completion,
 * ASSET_RETENTION_DAYS from an asset's creation; unset: kept forever). A render keeps its record
 * (status, usage, `output` with `url` null and `expired_at`); an asset goes with its row. Nothing
 * a queued or running job names is deleted, and a file reused by several renders goes with the
 * youngest of them (RetentionRepository.expireSharedOutput).
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger('Retention');
  private readonly settings: RetentionConfig;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly rows: RetentionRepository,
    private readonly storage: Storage,
  ) {
    this.settings = config.retention;
  }

  get enabled(): boolean {
    return this.settings.renderDays !== null || this.settings.assetDays !== null;
  }

  /** One sweep, or null when another is running (on this or another instance). */
  async sweep(): Promise<SweepReport | null> {
    if (!this.enabled) return { renders_expired: 0, assets_deleted: 0, kept_in_use: 0 };
    return this.rows.withSessionLock(SWEEP_LOCK, async () => {
      const report = { renders_expired: 0, assets_deleted: 0, kept_in_use: 0 };
      if (this.settings.renderDays !== null) await this.expireOutputs(this.settings.renderDays, report);
      if (this.settings.assetDays !== null) await this.deleteAssets(this.settings.assetDays, report);
      if (report.renders_expired + report.assets_deleted + report.kept_in_use > 0) this.logger.log(`Retention sweep: ${JSON.stringify(report)}`);
      return report;
    });
  }

  private async expireOutputs(days: number, report: SweepReport): Promise<void> {
    for (let after = ''; ; ) {
      const page = await this.rows.expiredOutputs(days, after, BATCH);
      const seen = new Set<string>();
      for (const job of page) {
        // Renders sharing one file (reuse) expire together, once.
        if (seen.has(job.output_key)) continue;
        seen.add(job.output_key);
        // The records first: no reader is handed a URL of a file about to go.
        const { expired, kept } = await this.rows.expireSharedOutput(job.workspace_id, job.output_key, days);
        if (kept === 'in_use') report.kept_in_use += 1;
        if (expired === 0) continue;
        await this.deleteFile(job.output_key);
        report.renders_expired += expired;
      }
      if (page.length < BATCH) return;
      after = page[page.length - 1].id;
    }
  }

  private async deleteAssets(days: number, report: SweepReport): Promise<void> {
    for (let after = ''; ; ) {
      const page = await this.rows.expiredAssets(days, after, BATCH);
      for (const asset of page) {
        if (!(await this.rows.deleteAsset(asset))) {
          report.kept_in_use += 1;
          continue;
        }
        await this.deleteFile(asset.storage_key);
        report.assets_deleted += 1;
      }
      if (page.length < BATCH) return;
      after = page[page.length - 1].id;
    }
  }

  private async deleteFile(key: string): Promise<void> {
    try {
      await this.storage.delete(key);
    } catch (error) {
      this.logger.warn(`Retention could not delete ${key}: ${(error as Error).message}`);
    }
  }
}
