import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Client } from 'pg';
import { DATABASE_URL } from '../infra/tokens';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { poolTimeouts } from '../data-source-options';
import { JOB_FINISHED_CHANNEL } from '../jobs/job.repository';

/**
 * Wakes event streams when their job ends, whichever process ran it: one LISTEN connection per
 * API process, opened by the first stream. A stream still reads the row on its interval (progress,
 * cancellation, a lost connection); a notification only cuts the wait short, so the final event
 * leaves as soon as the outcome is committed instead of up to an interval later.
 */
@Injectable()
export class JobWakeupsService implements OnModuleDestroy {
  private readonly logger = new Logger(JobWakeupsService.name);
  private readonly waiting = new Map<string, Set<() => void>>();
  private listener: Promise<Client | null> | null = null;
  private closed = false;

  constructor(
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Resolves after `ms`, or earlier when `jobId` is notified as finished. */
  async wait(jobId: string, ms: number): Promise<void> {
    await this.listen();
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.get(jobId)?.delete(wake);
        if (this.waiting.get(jobId)?.size === 0) this.waiting.delete(jobId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiting.set(jobId, (this.waiting.get(jobId) ?? new Set()).add(wake));
    });
  }

  private listen(): Promise<Client | null> {
    if (this.closed) return Promise.resolve(null);
    this.listener ??= (async () => {
      // Bounded like every pool: a stalled database must not hold a stream (or a shutdown) on this connect.
      const client = new Client({ connectionString: this.databaseUrl, ...poolTimeouts(this.config.database) });
      client.on('notification', (message) => {
        for (const wake of [...(this.waiting.get(message.payload ?? '') ?? [])]) wake();
      });
      // A broken connection is dropped; the next stream opens another, and polling covers the gap.
      client.on('error', (error) => {
        this.logger.warn(`job wake-up connection lost: ${error.message}`);
        this.listener = null;
        void client.end().catch(() => undefined);
      });
      await client.connect();
      await client.query(`LISTEN ${JOB_FINISHED_CHANNEL}`);
      return client;
    })().catch((error: Error) => {
      this.logger.warn(`job wake-ups unavailable, streams poll only: ${error.message}`);
      this.listener = null;
      return null;
    });
    return this.listener;
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    const client = await this.listener;
    this.listener = null;
    await client?.end().catch(() => undefined);
  }
}
