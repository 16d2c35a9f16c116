import { Batch } from './batch.entity';
import { BatchCounts } from './batch.repository';

export type BatchStatus = 'queued' | 'processing' | 'completed' | 'cancelled';

/**
 * The Batch object. `status`: `completed` once every row has ended (`cancelled` when the batch was
 * cancelled), `processing` once any row started or ended, else `queued`. `progress_percent`:
 * the share of rows that have ended.
 */
export function toBatchView(batch: Batch, counts: BatchCounts) {
  const ended = counts.completed + counts.failed + counts.cancelled;
  const status: BatchStatus = batch.completedAt
    ? batch.cancelledAt
      ? 'cancelled'
      : 'completed'
    : counts.processing > 0 || ended > 0
      ? 'processing'
      : 'queued';
  return {
    id: batch.id,
    project_id: batch.projectId,
    project_version: batch.projectVersion,
    status,
    row_count: batch.rowCount,
    counts,
    progress_percent: batch.rowCount === 0 ? 100 : Math.floor((ended / batch.rowCount) * 100),
    output_filename: batch.outputFilename,
    metadata: batch.metadata,
    webhook_url: batch.webhookUrl,
    created_at: batch.createdAt.toISOString(),
    updated_at: batch.updatedAt.toISOString(),
    cancelled_at: batch.cancelledAt?.toISOString() ?? null,
    completed_at: batch.completedAt?.toISOString() ?? null,
  };
}

export type BatchView = ReturnType<typeof toBatchView>;
