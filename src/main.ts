import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AppConfig, ConfigError, loadConfig, Role } from './config/app-config';
import { describeStartupFailure, needsDetail } from './config/startup-error';
import { createApp, listen, RunningApp } from './bootstrap';
import { EmbeddedDatabase, startEmbeddedPostgres } from './infra/database/embedded-postgres';
import { lowerThisProcess } from './infra/media/child-priority';
import { answerSupervisor, WORKER_PARENT_ENV, WorkerSupervisor } from './infra/process/worker-supervisor';
import { ReadinessRegistryService } from './infra/readiness/readiness-registry.service';
import { MetricsService } from './metrics/metrics.service';

const ROLES: Role[] = ['api', 'worker', 'all'];

/** `node dist/src/main.js [api|worker|all]` (default all); ROLE in the environment does the same. */
async function main(): Promise<void> {
  const requested = process.argv[2] ?? process.env.ROLE ?? 'all';
  if (!ROLES.includes(requested as Role)) {
    console.error(`Unknown role "${requested}"; use one of ${ROLES.join(', ')}`);
    process.exit(2);
  }
  const role = requested as Role;
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const supervised = role === 'worker' && process.env[WORKER_PARENT_ENV] !== undefined && process.send !== undefined;
  // First thing: every thread this process has and starts, and every process it starts, yields the CPU to the API.
  if (supervised) lowerThisProcess(config.render.niceness);
  let running: RunningApp | undefined;
  // Before the app starts: a worker takes jobs while it initialises, and a SIGTERM then must hand them back too.
  const signals = stopOnSignals();
  if (role === 'all' && config.workerProcess === 'fork') return runWithWorkerProcess(config, signals);
  try {
    running = await createApp(config, role);
    if (!signals.attach(running)) return; // signalled while starting: it is stopping already
    if (supervised) {
      const app = running.app;
      const readiness = app.get(ReadinessRegistryService);
      const ready = async () => (await Promise.all(readiness.entries().map(([, check]) => check().catch(() => false)))).every(Boolean);
      // Its supervisor serves HTTP; this process only answers it (readiness, metrics) over IPC.
      answerSupervisor({ ready, metrics: () => app.get(MetricsService).registry.getMetricsAsJSON() }, () => process.kill(process.pid, 'SIGTERM'));
      new Logger('Main').log(`Working as the worker process of ${process.env[WORKER_PARENT_ENV]}`);
      return;
    }
    await listen(running, config, role);
  } catch (error) {
    const line = describeStartupFailure(error, config);
    console.error(`Start-up failed: ${line}`);
    if (needsDetail(line)) console.error(error);
    await running?.close().catch(() => undefined);
    process.exit(1);
  }
}

/**
 * The `all` role with WORKER_PROCESS=fork (record 0129): this process serves the API and runs the
 * worker as a child process of the same build. The embedded PostgreSQL (if any) is started here
 * first and stopped last, after both processes have closed their connections.
 */
async function runWithWorkerProcess(config: AppConfig, signals: Signals): Promise<void> {
  let embedded: EmbeddedDatabase | null = null;
  let running: RunningApp | undefined;
  let worker: WorkerSupervisor | undefined;
  const stopAll = async (signal: NodeJS.Signals) => {
    await Promise.all([worker?.stop(signal), running?.close()]);
    await embedded?.stop();
  };
  try {
    embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort);
    const databaseUrl = config.databaseUrl ?? embedded!.url;
    running = await createApp({ ...config, databaseUrl }, 'api');
    const supervisor = (worker = new WorkerSupervisor(__filename, { ...process.env, DATABASE_URL: databaseUrl }));
    // /v1/ready keeps its renderer check: now the worker process's.
    running.app.get(ReadinessRegistryService).register('renderer', () => supervisor.ready());
    running.app.get(MetricsService).addWorkerProcess(() => supervisor.metrics());
    supervisor.start();
    if (!signals.attach({ close: stopAll, forward: (signal) => supervisor.forward(signal) })) return;
    await listen(running, config, 'all');
  } catch (error) {
    const line = describeStartupFailure(error, config);
    console.error(`Start-up failed: ${line}`);
    if (needsDetail(line)) console.error(error);
    await stopAll('SIGTERM').catch(() => undefined);
    process.exit(1);
  }
}

interface Stoppable {
  close(signal: NodeJS.Signals): Promise<void>;
  /** A second signal: pass it on before exiting at once. */
  forward?(signal: NodeJS.Signals): void;
}

interface Signals {
  attach(running: Stoppable): boolean;
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/**
 * Ctrl-C or SIGTERM: stop taking jobs and requests, let running ones end within the grace period
 * (or hand them back), close connections, then stop the embedded PostgreSQL (in that order, so that
 * nothing logs a dropped connection). A signal during start-up stops the app once it is built. A
 * second signal exits at once. This handler is the only one: a library's own (Remotion's browser
 * runner exits on SIGINT at once, mid-job) is removed as it is added; their 'exit' handlers still clean up.
 */
function stopOnSignals(): Signals {
  let stopping: NodeJS.Signals | null = null;
  let app: Stoppable | null = null;
  const close = (running: Stoppable, signal: NodeJS.Signals) =>
    running.close(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Stopping failed:', error);
        process.exit(1);
      },
    );
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      app?.forward?.(signal);
      process.exit(130);
    }
    stopping = signal;
    new Logger('Main').log(`${signal}: stopping`);
    if (app) void close(app, signal);
  };
  for (const signal of STOP_SIGNALS) {
    for (const listener of process.listeners(signal)) if (listener !== stop) process.removeListener(signal, listener);
    process.on(signal, stop);
  }
  process.on('newListener', (event: string | symbol, listener: (...args: unknown[]) => void) => {
    if (STOP_SIGNALS.includes(event as NodeJS.Signals) && listener !== stop) setImmediate(() => process.removeListener(event, listener));
  });
  return {
    attach: (running) => {
      app = running;
      if (stopping) void close(running, stopping);
      return !stopping;
    },
  };
}

main().catch((error: unknown) => {
  console.error('Start-up failed:', error ?? 'no reason was given');
  process.exit(1);
});
