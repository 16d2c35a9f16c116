import { z } from 'zod';
import { defineQueue } from '../../infra/queue/queue-definition';

/** One chunk of a split render: the parent job and the chunk's position in it. */
export const chunkPayload = z.strictObject({ job_id: z.string().min(1).max(100), index: z.number().int().min(0).max(100_000) });
export type ChunkPayload = z.infer<typeof chunkPayload>;

/** The pg-boss queue that carries chunks of split renders, taken by any worker process. */
export const RENDER_CHUNK_QUEUE = defineQueue('render-chunk', chunkPayload);
/** Where pg-boss moves a chunk whose every attempt died (worker killed each time): its row is marked failed. */
export const RENDER_CHUNK_DEAD_LETTER_QUEUE = defineQueue('render-chunk-dead', chunkPayload);

/** Attempts after the first of a chunk that crashed or hit an unexpected error; each retries only that chunk. */
export const RENDER_CHUNK_RETRY_LIMIT = 2;
/** Seconds before such a retry: a chunk is short, so it is tried again soon. */
export const RENDER_CHUNK_RETRY_DELAY_SECONDS = 2;
