import type { ErrorCode } from '../common/errors/api-error';

/** A render that cannot succeed, whatever the number of attempts: the job fails with this code. */
export class RenderFailure extends Error {
  constructor(
    readonly code: Extract<ErrorCode, 'invalid_source' | 'source_not_found' | 'source_too_large' | 'codec_unsupported' | 'invalid_request' | 'internal'>,
    message: string,
  ) {
    super(message);
  }
}
