import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { TERMINAL_STATUSES, type JobKind } from '../jobs/job.entity';
import { JobPresenterService } from '../jobs/job-presenter.service';
import { JobStoreService } from '../jobs/job-store.service';
import type { JobView } from '../jobs/job.view';
import { Workspace } from '../workspaces/workspace.entity';
import { JobWakeupsService } from './job-wakeups.service';

/**
 * How often a stream reads its job row. Progress is written at most every 500 ms
 * (ProgressWriter), so reading faster shows nothing new; the read is one primary-key lookup.
 */
export const EVENT_POLL_INTERVAL_MS = 300;
/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
const KEEPALIVE_INTERVAL_MS = 15_000;

/**
 * `GET /v1/{renders,tasks}/{id}/events`: the job as Server-Sent Events. The jobs table is the only
 * source (any API process can serve any stream, whichever worker runs the job): the row is read
 * every EVENT_POLL_INTERVAL_MS and a change is sent as `event: status` (the status changed; the
 * first event always is one) or `event: progress` (percent or stage changed), each carrying the
 * Job object as JSON. After the event of a final status the stream ends. A job reaching its final
 * status cuts the wait short (JobWakeupsService: the worker's NOTIFY), so that event leaves at once.
 */
@Injectable()
export class JobEventStreamService {
  private readonly logger = new Logger(JobEventStreamService.name);

  constructor(
    private readonly store: JobStoreService,
    private readonly presenter: JobPresenterService,
    private readonly wakeups: JobWakeupsService,
  ) {}

  async stream(workspace: Workspace, kind: JobKind, id: string, req: Request, res: Response): Promise<void> {
    // Before any header: an unknown id (or another workspace's) is a 404 in the error envelope.
    let job = await this.store.find(workspace, kind, id);
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // nginx buffers responses by default; events must leave as they are written.
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    let closed = false;
    req.on('close', () => (closed = true));
    const send = (event: 'status' | 'progress', view: JobView) => res.write(`event: ${event}\ndata: ${JSON.stringify(view)}\n\n`);
    let lastKeepalive = Date.now();
    let previous: { status: string; percent: number; stage: string | null } | null = null;
    try {
      while (!closed) {
        const current = { status: job.status, percent: job.progressPercent, stage: job.progressStage };
        if (!previous || previous.status !== current.status) send('status', await this.presenter.present(job));
        else if (previous.percent !== current.percent || previous.stage !== current.stage) send('progress', await this.presenter.present(job));
        else if (Date.now() - lastKeepalive >= KEEPALIVE_INTERVAL_MS) {
          res.write(': keepalive\n\n');
          lastKeepalive = Date.now();
        }
        previous = current;
        if (TERMINAL_STATUSES.includes(job.status)) break;
        await this.wakeups.wait(job.id, EVENT_POLL_INTERVAL_MS);
        if (closed) break;
        job = await this.store.find(workspace, kind, id);
      }
    } catch (error) {
      // Headers are gone: the envelope cannot be sent. The client sees the stream end early.
      this.logger.warn(`event stream of ${id} stopped: ${(error as Error).message}`);
    } finally {
      res.end();
    }
  }
}
