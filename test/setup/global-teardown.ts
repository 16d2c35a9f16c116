import { removeDataDir } from '../helpers/service-process';

/** Stops the embedded server global-setup started, and removes its cluster wherever it was placed. */
export default async function globalTeardown(): Promise<void> {
  // Safety net instead of forceExit: every app, pool and browser is closed by its test file, so
  // Jest exits on its own; should something still hold the process, say so and exit (Jest's exit
  // code, failures included, is kept).
  setTimeout(() => {
    console.error('Jest was still running 15 s after the last test: an open handle kept it (find it with --detectOpenHandles); exiting.');
    process.exit();
  }, 15_000).unref();

  const embedded = (globalThis as { __embeddedPg?: { db: { stop(): Promise<void> }; dataDir: string } }).__embeddedPg;
  if (!embedded) return;
  await embedded.db.stop();
  await removeDataDir(embedded.dataDir);
}
