import { statfs } from 'node:fs/promises';

/** Bytes an unprivileged writer can still use on the file system that holds `dir`; null when it cannot be read. */
export async function freeBytes(dir: string): Promise<number | null> {
  try {
    const stats = await statfs(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/**
 * Readiness: null while DATA_DIR (work files, and the local driver's objects) has at least
 * `minFreeBytes` free, else what is wrong in words.
 */
export async function diskSpaceProblem(dir: string, minFreeBytes: number): Promise<string | null> {
  if (minFreeBytes <= 0) return null;
  const free = await freeBytes(dir);
  if (free === null || free >= minFreeBytes) return null;
  return `Storage is nearly full: ${free} bytes free under ${dir}, below STORAGE_MIN_FREE_BYTES (${minFreeBytes})`;
}
