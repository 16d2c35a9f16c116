import type { components } from './generated/openapi';

export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
export type ValidationErrorItem = components['schemas']['ValidationErrorItem'];
export type Job = components['schemas']['Job'];
export type ErrorCode = ErrorEnvelope['error']['code'];

/**
 * An answer of the API that is not a success: the status, and the service's error envelope
 * `{error: {code, message, details}}` (for a 422 `invalid_request`, `validationErrors` lists each problem).
 */
export class VideoRenderApiError extends Error {
  readonly status: number;
  /** The envelope's code; `http_error` when the answer was not the service's envelope (e.g. a proxy's page). */
  readonly code: ErrorCode | 'http_error';
  readonly message: string;
  readonly details: Record<string, unknown> | undefined;
  /** The body as the service sent it; null when it was not an error envelope. */
  readonly envelope: ErrorEnvelope | null;
  /** `Retry-After` in seconds, on 429 and 503 answers. */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, envelope: ErrorEnvelope | null, headers?: Headers, fallbackMessage?: string) {
    const code = envelope?.error.code ?? 'http_error';
    const message = envelope?.error.message ?? fallbackMessage ?? `HTTP ${status}`;
    super(`${status} ${code}: ${message}`);
    this.name = 'VideoRenderApiError';
    this.status = status;
    this.code = code;
    this.message = message;
    this.details = envelope?.error.details;
    this.envelope = envelope;
    const retryAfter = headers?.get('retry-after');
    this.retryAfterSeconds = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  }

  get validationErrors(): ValidationErrorItem[] {
    const errors = this.details?.errors;
    return Array.isArray(errors) ? (errors as ValidationErrorItem[]) : [];
  }

  /** Builds the error from any body: one not in the envelope (a proxy's page) gets a synthetic envelope. */
  static from(response: Response, body: unknown): VideoRenderApiError {
    if (isEnvelope(body)) return new VideoRenderApiError(response.status, body, response.headers);
    const text = typeof body === 'string' ? body.slice(0, 200) : response.statusText;
    return new VideoRenderApiError(response.status, null, response.headers, text || undefined);
  }
}

/** A job that ended without success (`failed` or `cancelled`) while being waited for. */
export class JobFailedError extends Error {
  readonly job: Job;

  constructor(job: Job) {
    super(job.status === 'cancelled' ? `Job ${job.id} was cancelled` : `Job ${job.id} failed: ${job.error?.code ?? 'unknown'}: ${job.error?.message ?? ''}`);
    this.name = 'JobFailedError';
    this.job = job;
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  if (body === null || typeof body !== 'object') return false;
  const error = (body as { error?: unknown }).error;
  return error !== null && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string' && typeof (error as { message?: unknown }).message === 'string';
}
