import { Injectable } from '@nestjs/common';
import { JobChangeListener } from '../jobs/job-change-listener.service';

/**
 * Wakes event streams when their job ends, whichever process ran it, through the process's LISTEN
 * connection (JobChangeListener). A stream still reads the row on its interval (progress,
 * cancellation, a lost connection); a notification only cuts the wait short, so the final event
 * leaves as soon as the outcome is committed instead of up to an interval later.
 */
@Injectable()
export class JobWakeupsService {
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(private readonly changes: JobChangeListener) {
    changes.onJobFinished((jobId) => {
      for (const wake of [...(this.waiting.get(jobId) ?? [])]) wake();
    });
  }

  /** Resolves after `ms`, or earlier when `jobId` is notified as finished. */
  async wait(jobId: string, ms: number): Promise<void> {
    // Without a listening connection the stream polls only.
    await this.changes.ready();
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.get(jobId)?.delete(wake);
        if (this.waiting.get(jobId)?.size === 0) this.waiting.delete(jobId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiting.set(jobId, (this.waiting.get(jobId) ?? new Set()).add(wake));
    });
  }
}
