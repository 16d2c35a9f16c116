import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Workspace } from '../workspaces/workspace.entity';
import { BatchesService } from './batches.service';
import { BatchView } from './batch.view';

/** How often a batch stream reads its counts: one grouped count over the batch's rows. */
const BATCH_POLL_INTERVAL_MS = 500;
const KEEPALIVE_INTERVAL_MS = 15_000;

/**
 * `GET /v1/batches/{id}/events`: the batch as Server-Sent Events, like a job's stream
 * (JobEventStreamService): `status` when its status changes (always first), `progress` when its counts
 * change, each carrying the Batch; the stream ends after the event of its final status.
 */
@Injectable()
export class BatchEventStreamService {
  private readonly logger = new Logger(BatchEventStreamService.name);

  constructor(private readonly batches: BatchesService) {}

  async stream(workspace: Workspace, id: string, req: Request, res: Response): Promise<void> {
    // Before any header: another workspace's id is a 404 in the error envelope.
    let batch = await this.batches.get(workspace, id);
    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    let closed = false;
    req.on('close', () => (closed = true));
    const send = (event: 'status' | 'progress', view: BatchView) => res.write(`event: ${event}\ndata: ${JSON.stringify(view)}\n\n`);
    let previous: BatchView | null = null;
    let lastWrite = Date.now();
    try {
      while (!closed) {
        if (!previous || previous.status !== batch.status) send('status', batch);
        else if (JSON.stringify(previous.counts) !== JSON.stringify(batch.counts)) send('progress', batch);
        else if (Date.now() - lastWrite >= KEEPALIVE_INTERVAL_MS) res.write(': keepalive\n\n');
        else {
          await sleep(BATCH_POLL_INTERVAL_MS);
          batch = await this.batches.get(workspace, id);
          continue;
        }
        lastWrite = Date.now();
        previous = batch;
        if (batch.status === 'completed' || batch.status === 'cancelled') break;
      }
    } catch (error) {
      this.logger.warn(`event stream of ${id} stopped: ${(error as Error).message}`);
    } finally {
      res.end();
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
