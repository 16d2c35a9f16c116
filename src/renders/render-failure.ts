import type { ErrorCode } from '../common/errors/api-error';
import { JobFailure } from '../jobs/job-failure';

export type RenderFailureCode = Extract<ErrorCode, 'invalid_source' | 'source_not_found' | 'source_too_large' | 'codec_unsupported' | 'invalid_request' | 'internal'>;

/** A render that cannot succeed, whatever the number of attempts: the job fails with this code. */
export class RenderFailure extends JobFailure<RenderFailureCode> {}
