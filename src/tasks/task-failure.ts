import type { ErrorCode } from '../common/errors/api-error';
import { JobFailure } from '../jobs/job-failure';

/**
 * Failure codes a task can end with: the spec's source codes, plus `no_speech` (the audio holds
 * nothing to transcribe), which exists only on failed jobs and their `task.failed` events.
 */
export type TaskFailureCode = Extract<ErrorCode, 'invalid_source' | 'source_not_found' | 'source_too_large' | 'codec_unsupported' | 'invalid_request' | 'unsupported_feature' | 'internal'> | 'no_speech';

/** A task that cannot succeed, whatever the number of attempts: the job fails with this code. */
export class TaskFailure extends JobFailure<TaskFailureCode> {}
