/** The pg-boss queue of transcribe tasks; its payload is only the job id (the row holds the rest). */
export const TRANSCRIBE_QUEUE = 'transcribe';
/** Where pg-boss moves a transcribe task whose every attempt failed, so its job row is marked failed. */
export const TRANSCRIBE_DEAD_LETTER_QUEUE = 'transcribe-dead';

export interface TranscribeQueuePayload {
  job_id: string;
}

/** Attempts after the first when a worker crashes or hits an unexpected error (e.g. Google unavailable). */
export const TRANSCRIBE_RETRY_LIMIT = 2;
