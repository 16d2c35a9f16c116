import type { Job } from './job.entity';

export type JobEventType = 'render.completed' | 'render.failed' | 'render.progress' | 'task.completed' | 'task.failed' | 'task.progress';

/**
 * Where job and asset events leave the domain code. Renders, tasks and ingest call it; the webhooks
 * module decides who receives what (docs/decisions/0009-webhooks.md: workspace webhooks, or the job's own
 * `webhook_url`, which overrides them; progress events only to the per-request URL).
 * Neither method rejects: a failure to publish is logged, and the caller's work goes on.
 */
export abstract class EventPublisher {
  /** A job reached `completed`/`failed` (type says which) or made progress (`*.progress`). */
  abstract jobEvent(type: JobEventType, job: Job): Promise<void>;

  /** A job was cancelled (no event is sent for that); whoever follows the job's batch may care. */
  async jobCancelled(_job: Job): Promise<void> {}

  /** An external file was copied into storage (`ingest_external`): one `asset.ready` per file. */
  abstract assetReady(workspaceId: string, asset: Record<string, unknown>, webhookUrl: string | null): Promise<void>;

  /** A brand kit's extraction ended (`status` ready or failed): `brand_kit.ready` to the workspace's webhooks. */
  abstract brandKitReady(workspaceId: string, brandKit: Record<string, unknown>): Promise<void>;
}
