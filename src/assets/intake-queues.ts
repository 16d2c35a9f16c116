import { z } from 'zod';
import { defineQueue, jobPayload } from '../infra/queue/queue-definition';

/** Reads freshly stored bytes with ffprobe. */
export const ASSET_PROBE_QUEUE = defineQueue('asset-probe', z.strictObject({ asset_id: z.string().min(1).max(100) }));

/** Copies a job's external files into storage before it is queued for rendering. */
export const INGEST_QUEUE = defineQueue('ingest', jobPayload);
/** Where pg-boss moves an ingest whose every attempt crashed, so the job still ends (`ingest_failed`). */
export const INGEST_DEAD_LETTER_QUEUE = defineQueue('ingest-dead', jobPayload);
/** Attempts after the first when a worker crashes or hits an unexpected error (not a failed copy). */
export const INGEST_RETRY_LIMIT = 2;
