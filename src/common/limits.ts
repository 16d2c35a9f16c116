/** Largest file the service accepts from a source URL or an upload (spec part 8: 5 GiB). */
export const MAX_FILE_BYTES = 5 * 1024 ** 3;

/**
 * The longest one attempt of a job may run before the queue gives it up: the cap of every job's
 * run limit (pg-boss `expireInSeconds`; renders and transcriptions get less in proportion to their
 * size, the queues' defaults are lower still). Temporary files untouched for longer than this (plus
 * a margin) cannot belong to a live job.
 */
export const MAX_JOB_ATTEMPT_SECONDS = 6 * 3600;
