import { removeDataDir } from '../helpers/service-process';

/** Stops the embedded server global-setup started, and removes its cluster wherever it was placed. */
export default async function globalTeardown(): Promise<void> {
  const embedded = (globalThis as { __embeddedPg?: { db: { stop(): Promise<void> }; dataDir: string } }).__embeddedPg;
  if (!embedded) return;
  await embedded.db.stop();
  await removeDataDir(embedded.dataDir);
}
