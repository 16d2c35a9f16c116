import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { PgBoss } from 'pg-boss';
import { DATABASE_URL, RUNTIME_ROLE } from '../tokens';
import type { Role } from '../../config/app-config';

export type JobHandler<T> = (jobs: { id: string; data: T }[]) => Promise<void>;

interface WorkerRegistration {
  queue: string;
  handler: JobHandler<unknown>;
  options: { localConcurrency?: number; batchSize?: number };
}

/**
 * pg-boss on the service's own database (schema `pgboss`, created at start). Feature modules
 * create their queues here; handlers registered with `registerWorker` only run in the `worker`
 * and `all` roles, so the API process enqueues without consuming.
 */
@Injectable()
export class QueueService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Queue');
  private readonly workers: WorkerRegistration[] = [];
  private boss: PgBoss | null = null;
  private started = false;

  constructor(
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(RUNTIME_ROLE) private readonly role: Role,
  ) {}

  async onModuleInit(): Promise<void> {
    const boss = new PgBoss({ connectionString: this.databaseUrl, schema: 'pgboss', max: 4 });
    boss.on('error', (error: Error) => this.logger.error(`pg-boss: ${error.message}`));
    await boss.start();
    this.boss = boss;
    this.started = true;
  }

  /** Called by feature modules from their own onApplicationBootstrap, after every queue exists. */
  registerWorker<T>(queue: string, handler: JobHandler<T>, options: WorkerRegistration['options'] = {}): void {
    if (this.workers.some((w) => w.queue === queue)) throw new Error(`Queue "${queue}" has two handlers`);
    this.workers.push({ queue, handler: handler as JobHandler<unknown>, options });
    if (this.runsWorkers && this.boss) {
      void this.boss.work(queue, options, handler as never);
    }
  }

  get runsWorkers(): boolean {
    return this.role !== 'api';
  }

  get instance(): PgBoss {
    if (!this.boss) throw new Error('Queue not started');
    return this.boss;
  }

  async createQueue(name: string, options: Parameters<PgBoss['createQueue']>[1] = {}): Promise<void> {
    await this.instance.createQueue(name, options);
  }

  /** Readiness: the queue's schema answers a query. */
  async check(): Promise<boolean> {
    if (!this.started || !this.boss) return false;
    try {
      await this.boss.getQueues();
      return true;
    } catch {
      return false;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.started = false;
    await this.boss?.stop({ graceful: true, timeout: 10_000 }).catch(() => undefined);
  }
}
