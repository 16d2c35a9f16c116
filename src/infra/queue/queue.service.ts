import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Job as QueueJob, PgBoss, type SendOptions, type WorkOptions } from 'pg-boss';
import type { EntityManager } from 'typeorm';
import { DATABASE_URL, RUNTIME_ROLE } from '../tokens';
import type { AppConfig, Role } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

export type JobHandler<T> = (jobs: QueueJob<T>[]) => Promise<void>;

type WorkerOptions = Pick<
  WorkOptions,
  'localConcurrency' | 'batchSize' | 'notifyPollingIntervalSeconds' | 'pollingIntervalSeconds' | 'groupConcurrency'
>;

/** pg-boss runs its SQL through the caller's TypeORM transaction. */
function transactionExecutor(tx: EntityManager) {
  return { executeSql: async (text: string, values?: unknown[]) => ({ rows: await tx.query(text, values) }) };
}

/**
 * pg-boss on the service's own database (schema `pgboss`, created at start). Feature modules
 * create their queues here; handlers registered with `registerWorker` only run in the `worker`
 * and `all` roles, so the API process enqueues without consuming.
 */
@Injectable()
export class QueueService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Queue');
  /** Queues that have a handler in this process: a second one is a wiring mistake. */
  private readonly handledQueues = new Set<string>();
  private boss: PgBoss | null = null;
  private started = false;

  constructor(
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(RUNTIME_ROLE) private readonly role: Role,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const boss = new PgBoss({
      connectionString: this.databaseUrl,
      schema: 'pgboss',
      max: 4,
      // Queues created with `notify: true` wake their workers at once instead of at the next poll.
      useListenNotify: true,
      superviseIntervalSeconds: this.config.render.superviseSeconds,
      monitorIntervalSeconds: this.config.render.superviseSeconds,
    });
    boss.on('error', (error: Error) => this.logger.error(`pg-boss: ${error.message}`));
    await boss.start();
    this.boss = boss;
    this.started = true;
  }

  /** Called by feature modules from their own onApplicationBootstrap, after every queue exists. */
  registerWorker<T>(queue: string, handler: JobHandler<T>, options: WorkerOptions = {}): void {
    if (this.handledQueues.has(queue)) throw new Error(`Queue "${queue}" has two handlers`);
    this.handledQueues.add(queue);
    if (this.runsWorkers && this.boss) {
      this.boss.work(queue, options, handler as never).catch((error: Error) => {
        this.logger.error(`Queue "${queue}" has no worker: ${error.message}`);
      });
    }
  }

  get runsWorkers(): boolean {
    return this.role !== 'api';
  }

  get instance(): PgBoss {
    if (!this.boss) throw new Error('Queue not started');
    return this.boss;
  }

  /** Creates the queue, or brings an existing one's options up to date. */
  async ensureQueue(name: string, options: NonNullable<Parameters<PgBoss['createQueue']>[1]>): Promise<void> {
    const existing = await this.instance.getQueue(name);
    if (!existing) {
      await this.instance.createQueue(name, options);
      return;
    }
    const { policy: _fixedAtCreation, partition: _alsoFixed, ...updatable } = options;
    await this.instance.updateQueue(name, updatable);
  }

  /**
   * Enqueues inside the caller's transaction: the queue entry exists only if the job row commits,
   * so a job is never queued without its row nor saved without its queue entry. `options` can
   * delay the entry (`startAfter`), e.g. a scheduled webhook retry.
   */
  async sendInTransaction(tx: EntityManager, queue: string, data: object, options: Omit<SendOptions, 'db'> = {}): Promise<string | null> {
    return this.instance.send(queue, data, {
      ...options,
      db: transactionExecutor(tx),
    });
  }

  /** Cancels a queue entry inside the caller's transaction (a no-op once it finished). */
  async cancelInTransaction(tx: EntityManager, queue: string, id: string): Promise<void> {
    await this.instance.cancel(queue, id, { db: transactionExecutor(tx) });
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
