import { ProgressStage } from './job.entity';
import type { JobRepository } from './job.repository';

/** Progress rows are written at most this often; each write also tells whether the job was cancelled. */
const PROGRESS_WRITE_INTERVAL_MS = 500;
const CANCEL_POLL_INTERVAL_MS = 1000;

/**
 * Writes progress without touching `updated_at` (it marks status changes), throttled. Every write
 * and a one-second poll check the row still has the status the work runs in; when it has not, the
 * work is aborted.
 */
export class ProgressWriter {
  private last = 0;
  private pending: { stage: ProgressStage | null; percent: number } | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly poll: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobRepository,
    private readonly jobId: string,
    /** The status the job must keep while the work runs; any other means it was cancelled. */
    private readonly status: 'processing' | 'ingesting',
    private readonly abort: AbortController,
  ) {
    this.poll = setInterval(() => this.flush(true), CANCEL_POLL_INTERVAL_MS);
  }

  report(stage: ProgressStage | null, percent: number): void {
    this.pending = { stage, percent };
    if (Date.now() - this.last >= PROGRESS_WRITE_INTERVAL_MS) this.flush(false);
  }

  private flush(pollOnly: boolean): void {
    const update = this.pending;
    if (!update && !pollOnly) return;
    this.pending = null;
    this.last = Date.now();
    this.writing = this.writing
      .then(async () => {
        const stillProcessing =
          update && this.status === 'processing'
            ? await this.jobs.writeProgress(this.jobId, update.stage, update.percent)
            : await this.jobs.hasStatus(this.jobId, this.status);
        if (!stillProcessing) this.abort.abort(new Error('cancelled'));
      })
      .catch(() => undefined);
  }

  async stop(): Promise<void> {
    clearInterval(this.poll);
    await this.writing;
  }
}
