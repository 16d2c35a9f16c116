import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { QueueService } from '../../infra/queue/queue.service';
import { WorkerRepository } from './worker.repository';

const BEAT_SECONDS = 5;
/** A worker that missed this many seconds of beats is not counted: three beats, so one slow query does not hide it. */
const STALE_SECONDS = 3 * BEAT_SECONDS;

/**
 * This process as a worker others can count on: while it takes jobs (the `worker` and `all`
 * roles) it beats on its `workers` row, so the planner splits a long render only when another
 * worker is live to take chunks. Its id names it on the chunks it draws.
 */
@Injectable()
export class WorkerPresenceService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WorkerPresenceService');
  /** Host name and process id, and a random tail: a restarted container may reuse both. */
  readonly id = `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly queue: QueueService,
    private readonly workers: WorkerRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queue.runsWorkers) return;
    await this.workers.beat(this.id, os.hostname(), process.pid);
    this.timer = setInterval(() => {
      this.workers.beat(this.id, os.hostname(), process.pid).catch((error: Error) => this.logger.warn(`Heartbeat failed: ${error.message}`));
    }, BEAT_SECONDS * 1000);
    this.timer.unref();
  }

  /** Worker processes alive now, this one included when it takes jobs; at least 1 (a render being planned runs on one). */
  async liveWorkers(): Promise<number> {
    return Math.max(1, await this.workers.liveCount(STALE_SECONDS));
  }

  /** Before the database closes: a stopped worker is not counted on for the next split. */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    await this.workers.remove(this.id).catch(() => undefined);
  }
}
