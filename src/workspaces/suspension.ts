import { ApiError } from '../common/errors/api-error';

/** `error.code` of the queued jobs cancelled when the operator suspends their workspace. */
export const SUSPENDED_JOB_CODE = 'workspace_suspended';

/** The answer to every authenticated call of a suspended workspace's keys. */
export function suspendedError(): ApiError {
  return new ApiError('forbidden', "This workspace is suspended by the service's operator; its keys are refused until it is unsuspended", {
    reason: 'workspace_suspended',
  });
}
