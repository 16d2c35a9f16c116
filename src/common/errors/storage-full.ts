/** Storage (or the work folder under DATA_DIR) has no space left: not the client's fault, and not fixed by retrying at once. */
export class StorageFullError extends Error {
  readonly code = 'ENOSPC';

  constructor(what = 'storage') {
    super(`No space left on the device that holds ${what}: free space (or raise the disk's size) and try again`);
    this.name = 'StorageFullError';
  }
}

/**
 * Whether `error` (or one it wraps) says the disk is full: Node's ENOSPC, or the words of a child
 * process (ffmpeg, the browser) that reported it in its output.
 */
export function isStorageFull(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof StorageFullError) return true;
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (code === 'ENOSPC' || code === 'EDQUOT') return true;
    if (typeof message === 'string' && /\bENOSPC\b|No space left on device|Disk quota exceeded/i.test(message)) return true;
    current = cause;
  }
  return false;
}
