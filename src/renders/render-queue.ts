/** The pg-boss queue that carries render jobs; its payload is only the job id (the row holds the rest). */
export const RENDER_QUEUE = 'render';
/** Where pg-boss moves a render whose every attempt failed, so its job row is marked failed. */
export const RENDER_DEAD_LETTER_QUEUE = 'render-dead';

export interface RenderQueuePayload {
  job_id: string;
}

/** Attempts after the first when a worker crashes or hits an unexpected error. */
export const RENDER_RETRY_LIMIT = 2;
