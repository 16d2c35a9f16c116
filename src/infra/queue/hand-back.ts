/**
 * The reason a queue entry's signal is aborted when its process shuts down and the entry cannot
 * finish within the grace period: the entry goes back to the queue without using an attempt. A
 * handler that sees it stops, undoes its claim (e.g. the job row's attempt) and throws.
 */
export class HandBack extends Error {
  constructor() {
    super('The process is shutting down; the entry is handed back to the queue');
    this.name = 'HandBack';
  }
}

/** Whether `signal` was aborted to hand its entry back (a shutdown), not by a failure or a cancel. */
export function isHandBack(signal: AbortSignal | undefined): boolean {
  return Boolean(signal?.aborted && signal.reason instanceof HandBack);
}

/**
 * Milliseconds a job still needs, from its progress so far: elapsed × (100 − percent) / percent. Null
 * while there is too little progress to tell.
 */
export function remainingMs(elapsedMs: number, percent: number): number | null {
  if (!(percent >= 1)) return null;
  if (percent >= 100) return 0;
  return (elapsedMs * (100 - percent)) / percent;
}
