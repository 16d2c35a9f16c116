import { defineQueue, jobPayload } from '../../infra/queue/queue-definition';

/** The pg-boss queue of transcribe tasks. */
export const TRANSCRIBE_QUEUE = defineQueue('transcribe', jobPayload);
/** Where pg-boss moves a transcribe task whose every attempt failed, so its job row is marked failed. */
export const TRANSCRIBE_DEAD_LETTER_QUEUE = defineQueue('transcribe-dead', jobPayload);

/** Attempts after the first when a worker crashes or hits an unexpected error (e.g. Google unavailable). */
export const TRANSCRIBE_RETRY_LIMIT = 2;
