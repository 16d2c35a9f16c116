/**
 * The storage driver (S3, GCS, the local disk) refused or did not answer: not the request's fault.
 * `permanent`: a misconfiguration (missing bucket, refused credentials, no permission) that retrying
 * cannot fix, so a job fails at once; otherwise the store is down or slow, and a job is retried.
 * The message says what the operator must change; it never carries credentials or the driver's own
 * words (an S3 AccessDenied names the account), which go to the log through `cause`.
 */
export class StorageUnavailableError extends Error {
  constructor(
    readonly permanent: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

/** The StorageUnavailableError `error` is or wraps, else null. */
export function storageUnavailableOf(error: unknown): StorageUnavailableError | null {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof StorageUnavailableError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** A job's error message for a storage failure: what happened, then what the operator must fix. */
export function storageFailureMessage(label: string, failure: StorageUnavailableError, attempts: number): string {
  return failure.permanent
    ? `${label} failed: the service's storage is misconfigured (not retried). ${failure.message}`
    : `${label} failed: the service's storage did not answer in ${attempts} attempt${attempts === 1 ? '' : 's'}. ${failure.message}`;
}

/** Seconds a client should wait: an operator must act on a misconfiguration; an outage may pass soon. */
export function storageRetryAfterSeconds(failure: StorageUnavailableError): number {
  return failure.permanent ? 60 : 10;
}
