import { z } from 'zod';

/**
 * One pg-boss queue: its name and the schema of its payload. A feature module defines each of its
 * queues once (next to the code that handles it) and passes the definition to QueueService to
 * declare it, send to it and handle it, so a payload is checked on both sides of the queue.
 */
export interface QueueDefinition<P extends object> {
  readonly name: string;
  readonly payload: z.ZodType<P>;
}

export function defineQueue<P extends object>(name: string, payload: z.ZodType<P>): QueueDefinition<P> {
  return { name, payload };
}

/** The payload of every queue that carries a job: only its id (the row holds the rest). */
export const jobPayload = z.strictObject({ job_id: z.string().min(1).max(100) });
export type JobPayload = z.infer<typeof jobPayload>;
