import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Job as QueueJob, JobWithMetadata, PgBoss, type SendOptions, type WorkOptions } from 'pg-boss';
import type { EntityManager } from 'typeorm';
import type { QueueDefinition } from './queue-definition';
import { DATABASE_URL, RUNTIME_ROLE } from '../tokens';
import type { AppConfig, Role } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { poolTimeouts } from '../../data-source-options';
import { HandBack } from './hand-back';

export type JobHandler<T> = (jobs: QueueJob<T>[]) => Promise<void>;
export type QueueOptions = NonNullable<Parameters<PgBoss['createQueue']>[1]>;

type WorkerOptions = Pick<
  WorkOptions,
  'localConcurrency' | 'batchSize' | 'notifyPollingIntervalSeconds' | 'pollingIntervalSeconds' | 'groupConcurrency'
>;

/** The least statement timeout of the queue's pool (see onModuleInit). */
const QUEUE_QUERY_TIMEOUT_MS = 30_000;

/** An entry a handler of this process is working on. */
interface InFlight {
  queue: string;
  id: string;
  /** pg-boss's count, which names this claim (its attempt fence). */
  retryCount: number;
  shutdown: AbortController;
  /** The handler's estimate of the milliseconds it still needs (null: cannot tell). */
  remaining?: () => number | null;
}

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
export class QueueService implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('Queue');
  /** Queues this process declared, and those that have a handler here (exactly one each). */
  private readonly declaredQueues = new Map<string, QueueDefinition<object>>();
  private readonly handledQueues = new Set<string>();
  private boss: PgBoss | null = null;
  private started = false;
  /** Each declared queue's retry limit: a claim's retry limit above it counts entries handed back. */
  private readonly retryLimits = new Map<string, number>();
  private readonly inFlight = new Map<string, InFlight>();
  private draining = false;

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
      // pg-boss's maintenance scans and deletes over the whole job table: its statements get more
      // room than a request's, and a stall still ends them rather than holding a worker forever.
      ...poolTimeouts({ ...this.config.database, queryTimeoutMs: Math.max(QUEUE_QUERY_TIMEOUT_MS, this.config.database.queryTimeoutMs) }),
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

  /**
   * Called by feature modules from their own onApplicationBootstrap, after declaring the queue.
   * Each entry's payload is checked against the queue's schema first; a malformed one is logged
   * and dropped (retrying it could not help).
   */
  registerWorker<T extends object>(queue: QueueDefinition<T>, handler: JobHandler<T>, options: WorkerOptions = {}): void {
    if (this.handledQueues.has(queue.name)) throw new Error(`Queue "${queue.name}" has two handlers`);
    this.handledQueues.add(queue.name);
    if (this.runsWorkers && this.boss) {
      const checked = async (jobs: JobWithMetadata<unknown>[]) => {
        const valid: QueueJob<T>[] = [];
        const entries: InFlight[] = [];
        for (const job of jobs) {
          const parsed = queue.payload.safeParse(job.data);
          if (!parsed.success) {
            this.logger.error(`Dropping malformed entry ${job.id} of queue "${queue.name}": ${parsed.error.issues[0]?.message}`);
            continue;
          }
          const entry: InFlight = { queue: queue.name, id: job.id, retryCount: job.retryCount, shutdown: new AbortController() };
          entries.push(entry);
          this.inFlight.set(job.id, entry);
          // Handlers see the attempts used: entries handed back at a shutdown raised the limit instead.
          const declaredLimit = this.retryLimits.get(queue.name) ?? job.retryLimit;
          const handedBack = job.retryLimit > declaredLimit ? job.retryLimit - declaredLimit : 0;
          const signal = job.signal ? AbortSignal.any([job.signal, entry.shutdown.signal]) : entry.shutdown.signal;
          valid.push({ ...job, data: parsed.data as T, retryCount: job.retryCount - handedBack, signal });
        }
        try {
          if (valid.length > 0) await handler(valid);
        } catch (error) {
          const handingBack = entries.filter((entry) => entry.shutdown.signal.aborted);
          for (const entry of handingBack) await this.handBack(entry);
          // pg-boss fails the rest; those handed back are no longer active under this claim, so its fence skips them.
          if (handingBack.length < entries.length) throw error;
        } finally {
          for (const entry of entries) this.inFlight.delete(entry.id);
          this.wake(queue.name);
        }
      };
      // includeMetadata: the claim's retry limit, which says how many times it was handed back.
      this.boss.work(queue.name, { ...options, includeMetadata: true }, checked as never).catch((error: Error) => {
        this.logger.error(`Queue "${queue.name}" has no worker: ${error.message}`);
      });
    }
  }

  /**
   * A handler that can tell how long its entry still needs says so here; at a shutdown an entry
   * that cannot finish within the grace period is then handed back at once instead of at its end.
   */
  estimateRemaining(entryId: string, remaining: () => number | null): void {
    const entry = this.inFlight.get(entryId);
    if (entry) entry.remaining = remaining;
  }

  /**
   * Back to the queue without using an attempt: `retry` at once, with the retry limit raised by
   * one, since the next claim counts one more retry. Fenced to this claim (state and retry count),
   * as pg-boss's own settles are; a crash still counts as today (the supervisor fails the claim).
   */
  private async handBack(entry: InFlight): Promise<void> {
    try {
      await this.instance.getDb().executeSql(
        `UPDATE pgboss.job SET state = 'retry', retry_limit = retry_limit + 1, start_after = now(), heartbeat_on = NULL
         WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3`,
        [entry.queue, entry.id, entry.retryCount],
      );
      this.logger.log(`Handed entry ${entry.id} of queue "${entry.queue}" back to the queue`);
    } catch (error) {
      // The claim then lapses as after a crash: the supervisor retries it (using an attempt).
      this.logger.error(`Could not hand entry ${entry.id} of queue "${entry.queue}" back: ${(error as Error).message}`);
    }
  }

  /**
   * A worker that finished an entry fetches the next one at once rather than at its next poll:
   * a NOTIFY that arrived while it worked would do the same, and none may have.
   */
  private wake(queueName: string): void {
    if (this.draining || !this.boss) return;
    for (const worker of this.boss.getWipData()) if (worker.name === queueName) this.boss.notifyWorker(worker.id);
  }

  /**
   * In processes that run workers: every declared queue must have its handler (the start fails
   * otherwise, rather than leaving jobs that nothing will ever take).
   */
  assertEveryQueueHandled(): void {
    if (!this.runsWorkers) return;
    const unhandled = [...this.declaredQueues.keys()].filter((name) => !this.handledQueues.has(name));
    if (unhandled.length > 0) throw new Error(`No handler for queue${unhandled.length > 1 ? 's' : ''} ${unhandled.map((n) => `"${n}"`).join(', ')}`);
  }

  get runsWorkers(): boolean {
    return this.role !== 'api';
  }

  get instance(): PgBoss {
    if (!this.boss) throw new Error('Queue not started');
    return this.boss;
  }

  /** A queue this process declared, by name (a job row records the queue it waits in). */
  definition(name: string): QueueDefinition<object> {
    const queue = this.declaredQueues.get(name);
    if (!queue) throw new Error(`Queue "${name}" is not declared in this process`);
    return queue;
  }

  /** Creates the queue, or brings an existing one's options up to date. */
  async declare(queue: QueueDefinition<object>, options: QueueOptions): Promise<void> {
    const known = this.declaredQueues.get(queue.name);
    if (known && known !== queue) throw new Error(`Queue "${queue.name}" is defined twice`);
    this.declaredQueues.set(queue.name, queue);
    this.retryLimits.set(queue.name, options.retryLimit ?? 2);
    const existing = await this.instance.getQueue(queue.name);
    if (!existing) {
      await this.instance.createQueue(queue.name, options);
      return;
    }
    const { policy: _fixedAtCreation, partition: _alsoFixed, ...updatable } = options;
    await this.instance.updateQueue(queue.name, updatable);
  }

  /**
   * A job queue with its dead-letter queue: an entry that used every attempt (each one heart-beating,
   * so a dead worker's entry is handed on) moves to `deadLetter`, whose handler must still end it.
   * Idle workers are woken by NOTIFY.
   */
  async declareWithDeadLetter(
    queue: QueueDefinition<object>,
    deadLetter: QueueDefinition<object>,
    options: Required<Pick<QueueOptions, 'retryLimit' | 'retryDelay' | 'expireInSeconds' | 'heartbeatSeconds'>>,
  ): Promise<void> {
    await this.declare(deadLetter, { retryLimit: 5, retryDelay: 5 });
    await this.declare(queue, { ...options, deadLetter: deadLetter.name, notify: true });
  }

  /**
   * Enqueues inside the caller's transaction: the queue entry exists only if the job row commits,
   * so a job is never queued without its row nor saved without its queue entry. `options` can
   * delay the entry (`startAfter`), e.g. a scheduled webhook retry.
   */
  async sendInTransaction<T extends object>(tx: EntityManager, queue: QueueDefinition<T>, data: T, options: Omit<SendOptions, 'db'> = {}): Promise<string | null> {
    return this.instance.send(queue.name, queue.payload.parse(data), {
      ...options,
      db: transactionExecutor(tx),
    });
  }

  /** Cancels a queue entry inside the caller's transaction (a no-op once it finished). */
  async cancelInTransaction(tx: EntityManager, queue: string, id: string): Promise<void> {
    // By name: a job row records the queue it waits in.
    await this.instance.cancel(queue, id, { db: transactionExecutor(tx) });
  }

  /**
   * Moves a group's waiting entries (not yet taken by a worker) to another tier inside the
   * caller's transaction: the tier decides how many of the group's jobs run at once, so a
   * workspace that changes plan is served by its new plan's concurrency from its next dispatch.
   * pg-boss has no call for this; its job table keeps group and tier in these columns.
   */
  async retierGroupInTransaction(tx: EntityManager, groupId: string, tier: string): Promise<void> {
    await tx.query(`UPDATE pgboss.job SET group_tier = $2 WHERE group_id = $1 AND state IN ('created', 'retry') AND group_tier IS DISTINCT FROM $2`, [groupId, tier]);
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

  /**
   * A stopping process takes no new job from the first moment of its shutdown: the other modules'
   * shutdown (closing the browser, waiting for a warm-up) can take seconds, and a job fetched then
   * would be started by a process on its way out. Jobs already running finish or are handed back
   * in drain().
   */
  async stopTakingJobs(): Promise<void> {
    if (!this.boss) return;
    const boss = this.boss;
    await Promise.all([...this.handledQueues].map((name) => boss.offWork(name, { wait: false }).catch(() => undefined)));
  }

  /**
   * A shutdown's first step (SIGTERM): no new entry is taken; an entry that can finish within
   * `graceMs` finishes, the others are handed back (HandBack), at once when their handler's
   * estimate says they would not make it, else when the grace ends. Resolves when nothing runs.
   */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    await this.stopTakingJobs();
    const deadline = Date.now() + graceMs;
    // A handler that ignores its signal is not waited for forever: pg-boss then fails its entry at stop.
    const giveUp = deadline + 5000;
    while (this.inFlight.size > 0 && Date.now() < giveUp) {
      const now = Date.now();
      for (const entry of this.inFlight.values()) {
        if (entry.shutdown.signal.aborted) continue;
        const remaining = entry.remaining?.() ?? null;
        if (now >= deadline || (remaining !== null && now + remaining > deadline)) entry.shutdown.abort(new HandBack());
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.stopTakingJobs();
  }

  async onApplicationShutdown(): Promise<void> {
    this.started = false;
    // drain() has waited for the handlers already; one that ignored its signal is failed by pg-boss.
    await this.boss?.stop({ graceful: true, timeout: 2_000 }).catch(() => undefined);
  }
}
