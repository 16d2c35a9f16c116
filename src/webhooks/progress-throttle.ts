/** docs/decisions/0004-jobs.md: at most one progress event per 5 percentage points or 2 seconds. */
export const PROGRESS_MIN_STEP_PERCENT = 5;
export const PROGRESS_MIN_INTERVAL_MS = 2000;
/** Jobs that stop without a terminal event (cancelled) are forgotten after this long. */
const FORGET_AFTER_MS = 15 * 60_000;
const SWEEP_ABOVE_ENTRIES = 1000;

/**
 * Decides which progress reports become events. A job's progress is reported by the one worker
 * process rendering it, so the memory of what was last sent lives in that process.
 */
export class ProgressThrottle {
  private readonly lastSent = new Map<string, { percent: number; stage: string | null; at: number }>();

  shouldSend(jobId: string, percent: number, stage: string | null, now = Date.now()): boolean {
    const last = this.lastSent.get(jobId);
    const changed = !last || percent !== last.percent || stage !== last.stage;
    const due = !last || percent - last.percent >= PROGRESS_MIN_STEP_PERCENT || now - last.at >= PROGRESS_MIN_INTERVAL_MS;
    if (!changed || !due) return false;
    this.sweep(now);
    this.lastSent.set(jobId, { percent, stage, at: now });
    return true;
  }

  /** The job ended: its next reports, if any, start afresh. */
  forget(jobId: string): void {
    this.lastSent.delete(jobId);
  }

  private sweep(now: number): void {
    if (this.lastSent.size < SWEEP_ABOVE_ENTRIES) return;
    for (const [jobId, last] of this.lastSent) {
      if (now - last.at > FORGET_AFTER_MS) this.lastSent.delete(jobId);
    }
  }
}
