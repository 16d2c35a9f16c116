import { defineQueue, jobPayload } from '../infra/queue/queue-definition';

/** The pg-boss queue that carries render jobs. */
export const RENDER_QUEUE = defineQueue('render', jobPayload);
/** Where pg-boss moves a render whose every attempt failed, so its job row is marked failed. */
export const RENDER_DEAD_LETTER_QUEUE = defineQueue('render-dead', jobPayload);

/** Attempts after the first when a worker crashes or hits an unexpected error. */
export const RENDER_RETRY_LIMIT = 2;
