/** Error codes of the interface, plus the few this service adds (docs/decisions/0003-errors.md). */
export const ERROR_STATUS = {
  invalid_code: 400,
  unauthorized: 401,
  quota_exceeded: 402,
  email_not_verified: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  invalid_request: 422,
  unsupported_feature: 422,
  invalid_source: 422,
  source_not_found: 422,
  source_too_large: 422,
  asset_not_ready: 422,
  codec_unsupported: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  storage_full: 503,
  storage_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The most items a validation error lists; `details.errors_total` counts the rest. */
export const MAX_VALIDATION_ITEMS = 100;

export interface ValidationErrorItem {
  type: string;
  loc: (string | number)[];
  msg: string;
  pointer: string;
  suggestion?: string;
}

/**
 * The one error type services throw. The global filter turns it into the spec's envelope
 * `{error: {code, message, details}}` with the status that belongs to the code.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  static notFound(what: string): ApiError {
    return new ApiError('not_found', `${what} not found`);
  }

  /**
   * A 422 listing the problems. A hostile body can have hundreds of thousands of them; the answer
   * lists the first MAX_VALIDATION_ITEMS and says how many there were (`errors_total`).
   */
  static validation(errors: ValidationErrorItem[], message?: string): ApiError {
    const first = errors[0];
    const summary =
      message ??
      (errors.length === 1
        ? `Invalid request: ${first.msg} at ${first.pointer || '/'}`
        : `Invalid request: ${errors.length} problems, first: ${first.msg} at ${first.pointer || '/'}`);
    if (errors.length <= MAX_VALIDATION_ITEMS) return new ApiError('invalid_request', summary, { errors });
    return new ApiError('invalid_request', summary, { errors: errors.slice(0, MAX_VALIDATION_ITEMS), errors_total: errors.length });
  }
}

export function errorBody(code: string, message: string, details?: Record<string, unknown>) {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}
