import { ChildProcess, fork } from 'node:child_process';
import { Logger } from '@nestjs/common';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/** Set in the environment of a worker process started by a WorkerSupervisor: the parent's pid. */
export const WORKER_PARENT_ENV = 'VRS_WORKER_PARENT_PID';

export type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

/** What the parent asks its worker process over the IPC channel, and what it answers. */
type Question = { id: number; ask: 'ready' | 'metrics' };
type Answer = { id: number; ready?: boolean; metrics?: WorkerMetrics };

const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** A worker that ran this long before it died starts again after the first backoff. */
const HEALTHY_RUN_MS = 60_000;

/**
 * The `all` role's worker as a child Node process of the same build (`main.js worker`, record
 * 0129), as immich runs its API and its microservices apart in one container: Remotion's
 * synchronous work and the render's CPU then no longer hold up the API's event loop. Restarts a
 * worker that died (backoff doubling to 30 s), forwards the stop signal and waits for its graceful
 * exit, and asks it over IPC whether it is ready and for its metrics. The child writes to this
 * process's stdout and stderr; it runs in its own process group, so a terminal's Ctrl-C reaches
 * it once, through this process.
 */
export class WorkerSupervisor {
  private readonly logger = new Logger('WorkerProcess');
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private stopping = false;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: Answer | null) => void>();

  constructor(
    private readonly entry: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The worker process's pid while it runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): void {
    if (this.stopping || this.child) return;
    const startedAt = Date.now();
    const child = fork(this.entry, ['worker'], {
      env: { ...this.env, [WORKER_PARENT_ENV]: String(process.pid) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // The parent's node flags (memory limits, --import), but not its debugger port, which is taken.
      execArgv: process.execArgv.filter((flag) => !flag.startsWith('--inspect')),
      detached: true,
    });
    this.child = child;
    this.logger.log(`Worker process ${child.pid} started`);
    child.on('message', (message: Answer) => {
      const answer = this.waiting.get(message?.id);
      if (answer) answer(message);
    });
    // A failed spawn emits 'error' and maybe no 'exit'; both end up in gone().
    let ended = false;
    this.exited = new Promise((resolve) => {
      const gone = (how: string) => {
        if (ended) return;
        ended = true;
        this.child = null;
        for (const answer of this.waiting.values()) answer(null);
        this.waiting.clear();
        resolve();
        if (this.stopping) return;
        if (Date.now() - startedAt >= HEALTHY_RUN_MS) this.failures = 0;
        const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.failures);
        this.failures++;
        this.logger.error(`Worker process ${child.pid ?? '(not started)'} ${how}; starting another in ${delay / 1000} s`);
        this.restartTimer = setTimeout(() => {
          this.restartTimer = null;
          this.start();
        }, delay);
      };
      child.once('exit', (code, signal) => gone(signal ? `was killed by ${signal}` : `exited with code ${code}`));
      child.once('error', (error) => gone(`failed: ${error.message}`));
    });
  }

  /** Passes the stop signal on and resolves once the worker has exited (after its own grace period). */
  async stop(signal: NodeJS.Signals): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.child?.kill(signal);
    await this.exited;
  }

  /** Passes a signal on without waiting (a second Ctrl-C: the worker exits at once too). */
  forward(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /** The worker's own readiness checks (its renderer); false while it is down or does not answer. */
  async ready(): Promise<boolean> {
    return (await this.ask('ready', 2500))?.ready === true;
  }

  /** The worker's metrics (prom-client's JSON form); none while it is down or does not answer. */
  async metrics(): Promise<WorkerMetrics> {
    return (await this.ask('metrics', 2500))?.metrics ?? [];
  }

  private ask(ask: Question['ask'], timeoutMs: number): Promise<Answer | null> {
    const child = this.child;
    if (!child?.connected) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(null), timeoutMs);
      const finish = (answer: Answer | null) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(answer);
      };
      this.waiting.set(id, finish);
      child.send({ id, ask } satisfies Question, (error) => {
        if (error) finish(null);
      });
    });
  }
}

/**
 * The worker process's side: answers its supervisor's questions, and stops (as on SIGTERM) when
 * the supervisor is gone without saying so (killed), so that no worker outlives its parent.
 */
export function answerSupervisor(handlers: { ready(): Promise<boolean>; metrics(): Promise<WorkerMetrics> }, stop: () => void): void {
  process.on('message', (message: Question) => {
    const reply = (answer: Omit<Answer, 'id'>) => {
      if (process.connected) process.send?.({ id: message.id, ...answer } satisfies Answer);
    };
    if (message?.ask === 'ready') void handlers.ready().then((ready) => reply({ ready }), () => reply({ ready: false }));
    else if (message?.ask === 'metrics') void handlers.metrics().then((metrics) => reply({ metrics }), () => reply({ metrics: [] }));
  });
  process.once('disconnect', stop);
}
