import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AppConfig, ConfigError, loadConfig, Role } from './config/app-config';
import { describeStartupFailure, needsDetail } from './config/startup-error';
import { createApp, listen, RunningApp } from './bootstrap';

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
  let running: RunningApp | undefined;
  // Before the app starts: a worker takes jobs while it initialises, and a SIGTERM then must hand them back too.
  const signals = stopOnSignals();
  try {
    running = await createApp(config, role);
    if (!signals.attach(running)) return; // signalled while starting: it is stopping already
    await listen(running, config, role);
  } catch (error) {
    const line = describeStartupFailure(error, config);
    console.error(`Start-up failed: ${line}`);
    if (needsDetail(line)) console.error(error);
    await running?.close().catch(() => undefined);
    process.exit(1);
  }
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/**
 * Ctrl-C or SIGTERM: stop taking jobs and requests, let running ones end within the grace period
 * (or hand them back), close connections, then stop the embedded PostgreSQL (in that order, so that
 * nothing logs a dropped connection). A signal during start-up stops the app once it is built. A
 * second signal exits at once. This handler is the only one: a library's own (Remotion's browser
 * runner exits on SIGINT at once, mid-job) is removed as it is added; their 'exit' handlers still clean up.
 */
function stopOnSignals(): { attach(running: RunningApp): boolean } {
  let stopping = false;
  let app: RunningApp | null = null;
  const close = (running: RunningApp) =>
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Stopping failed:', error);
        process.exit(1);
      },
    );
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    new Logger('Main').log(`${signal}: stopping`);
    if (app) void close(app);
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
      if (stopping) void close(running);
      return !stopping;
    },
  };
}

main().catch((error: unknown) => {
  console.error('Start-up failed:', error ?? 'no reason was given');
  process.exit(1);
});
