import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MAX_JOB_ATTEMPT_SECONDS } from '../../common/limits';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

/**
 * A temporary entry untouched for this long belongs to no live process: no job attempt runs
 * longer than MAX_JOB_ATTEMPT_SECONDS, and an upload being written touches its file with every
 * chunk. The margin covers clock skew between machines sharing the disk and a job that
 * overruns its expiry before noticing.
 */
export const STALE_FILE_SECONDS = MAX_JOB_ATTEMPT_SECONDS + 2 * 3600;
/** Processes live for days: leftovers of a crashed neighbour on the same disk are swept this often too. */
const SWEEP_INTERVAL_MS = 3600_000;

/** The folders whose entries are temporary: job work folders, and the local driver's half-written uploads. */
export function temporaryFolders(dataDir: string): string[] {
  return [path.join(dataDir, 'work'), path.join(dataDir, 'storage', '.tmp')];
}

/**
 * The newest change anywhere in an entry. A hard-linked file (a stored object handed to a job,
 * local-storage.ts) keeps the stored file's old mtime, so its ctime, set when the link was made,
 * says when the job took it. A folder's own mtime moves whenever an entry is added.
 */
async function lastTouched(entry: string, info: Stats): Promise<number> {
  let newest = info.nlink > 1 && info.isFile() ? Math.max(info.mtimeMs, info.ctimeMs) : info.mtimeMs;
  if (!info.isDirectory()) return newest;
  let children: Dirent[];
  try {
    children = await readdir(entry, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const child of children) {
    const childPath = path.join(entry, child.name);
    const childInfo = await lstat(childPath).catch(() => null);
    if (childInfo) newest = Math.max(newest, await lastTouched(childPath, childInfo));
  }
  return newest;
}

/** Removes the entries of `folder` not touched since `cutoffMs`; returns their names. */
export async function sweepStaleEntries(folder: string, cutoffMs: number): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const name of entries) {
    const entry = path.join(folder, name);
    const info = await lstat(entry).catch(() => null);
    if (!info || (await lastTouched(entry, info)) >= cutoffMs) continue;
    await rm(entry, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * Leftovers of crashed processes on this machine's disk: job work folders and half-written
 * uploads, swept at start and every hour after. Age alone decides, because the disk may be shared
 * with live processes (an API and a worker on one DATA_DIR) whose files must survive. Runs in
 * every process, not through the queue: each machine has its own disk.
 */
@Injectable()
export class StaleFilesWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('StaleFiles');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    this.running = this.sweep();
    this.timer = setInterval(() => {
      this.running ??= this.sweep();
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Never throws: a failed sweep is logged and tried again at the next interval. */
  async sweep(now = Date.now()): Promise<void> {
    try {
      for (const folder of temporaryFolders(this.config.dataDir)) {
        const removed = await sweepStaleEntries(folder, now - STALE_FILE_SECONDS * 1000);
        if (removed.length > 0) this.logger.log(`Removed ${removed.length} leftover temporary entries from ${folder}`);
      }
    } catch (error) {
      this.logger.warn(`Sweeping leftover temporary files failed: ${(error as Error).message}`);
    } finally {
      this.running = null;
    }
  }
}
