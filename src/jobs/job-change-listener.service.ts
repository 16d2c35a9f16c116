import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Client } from 'pg';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { poolTimeouts } from '../data-source-options';
import { DATABASE_URL } from '../infra/tokens';
import { JobReadCache } from './job-read-cache';
import { JOB_CHANGED_CHANNEL, JOB_FINISHED_CHANNEL } from './job.repository';

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * The process's one LISTEN connection for jobs. It keeps JobReadCache exact across processes: on
 * `job_changed` (the trigger on `jobs` notifies every updated or deleted job, whoever wrote it) it
 * drops the job's entry; on `job_finished` it calls the `onJobFinished` handlers (event streams). The cache serves only while this connection listens; when it is
 * lost the cache is emptied and disabled, and a new connection is tried after 1 s, doubling to
 * 30 s. Opened when a process that serves the API starts (bootstrap) or by a first read, so a worker holds none.
 */
@Injectable()
export class JobChangeListener implements OnModuleDestroy {
  private readonly logger = new Logger(JobChangeListener.name);
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryMs = RETRY_FIRST_MS;
  private closed = false;
  private readonly finishedHandlers = new Set<(jobId: string) => void>();

  constructor(
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly cache: JobReadCache,
  ) {}

  /** Starts listening unless it is already, or a connection or a retry is under way. */
  start(): void {
    if (this.closed || this.client || this.connecting || this.retryTimer) return;
    this.connecting = this.connect().finally(() => (this.connecting = null));
  }

  /** Resolves once listening (or the attempt failed); for callers that want the cache from the first read. */
  async ready(): Promise<boolean> {
    this.start();
    await this.connecting;
    return this.cache.enabled;
  }

  /** Calls `handler` with the id of each job that ends while this connection listens; returns its removal. */
  onJobFinished(handler: (jobId: string) => void): () => void {
    this.finishedHandlers.add(handler);
    return () => this.finishedHandlers.delete(handler);
  }

  /** Drops the connection as a failure would (the cache stops serving); the usual retry follows. */
  disconnect(reason: string): void {
    const client = this.client;
    if (client) this.lost(client, new Error(reason));
  }

  private async connect(): Promise<void> {
    // Bounded like every pool: a stalled database must not hold a read (or a shutdown) on this connect.
    const client = new Client({ connectionString: this.databaseUrl, keepAlive: true, keepAliveInitialDelayMillis: 10_000, ...poolTimeouts(this.config.database) });
    client.on('notification', (message) => {
      if (!message.payload) return;
      if (message.channel === JOB_CHANGED_CHANNEL) this.cache.invalidate(message.payload);
      else for (const handler of [...this.finishedHandlers]) handler(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${JOB_CHANGED_CHANNEL}; LISTEN ${JOB_FINISHED_CHANNEL}`);
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RETRY_FIRST_MS;
    // Changes made before LISTEN took effect were not notified: start empty.
    this.cache.setListening(true);
  }

  private lost(client: Client, error: Error): void {
    if (this.client !== null && this.client !== client) return;
    const wasListening = this.client === client;
    this.client = null;
    this.cache.setListening(false);
    client.removeAllListeners('end');
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    if (wasListening) this.logger.warn(`job change notifications lost, reads go to the database until they resume: ${error.message}`);
    else this.logger.warn(`job change notifications unavailable, retrying in ${this.retryMs} ms: ${error.message}`);
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.start();
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting;
    const client = this.client;
    this.client = null;
    this.cache.setListening(false);
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}
