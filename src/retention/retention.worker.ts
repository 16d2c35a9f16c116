import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { z } from 'zod';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { defineQueue } from '../infra/queue/queue-definition';
import { QueueService } from '../infra/queue/queue.service';
import { RetentionService } from './retention.service';

export const RETENTION_SWEEP_QUEUE = defineQueue('retention-sweep', z.strictObject({}));

/** RETENTION_SWEEP_MINUTES as cron: every N minutes below an hour, else every N/60 hours. */
export function sweepCron(minutes: number): string {
  return minutes < 60 ? `*/${minutes} * * * *` : `0 */${minutes / 60} * * *`;
}

/**
 * Runs the retention sweep on a pg-boss schedule: whichever instance is up enqueues it and one
 * worker takes it, however many are deployed (and the sweep's own lock keeps two from overlapping).
 * Worker roles also queue one sweep at start-up.
 */
@Injectable()
export class RetentionWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('Retention');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: QueueService,
    private readonly retention: RetentionService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.declare(RETENTION_SWEEP_QUEUE, { retryLimit: 1, expireInSeconds: 3600 });
    this.queue.registerWorker(RETENTION_SWEEP_QUEUE, async () => {
      await this.retention.sweep();
    });
    if (!this.retention.enabled) {
      await this.queue.instance.unschedule(RETENTION_SWEEP_QUEUE.name);
      return;
    }
    await this.queue.instance.schedule(RETENTION_SWEEP_QUEUE.name, sweepCron(this.config.retention.sweepMinutes), {});
    if (this.queue.runsWorkers) {
      await this.queue.instance.send(RETENTION_SWEEP_QUEUE.name, {});
      this.logger.log(
        `Retention: renders ${this.config.retention.renderDays ?? 'kept forever'}${this.config.retention.renderDays ? ' days' : ''}, assets ${this.config.retention.assetDays ?? 'kept forever'}${this.config.retention.assetDays ? ' days' : ''}; sweeping every ${this.config.retention.sweepMinutes} minutes`,
      );
    }
  }
}
