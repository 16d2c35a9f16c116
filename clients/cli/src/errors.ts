/** Exit codes of `vrs` (documented in `vrs --help`). */
export const EXIT = { ok: 0, permanent: 1, transient: 2 } as const;

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** A failure with the exit code it maps to and, when the service answered, its error envelope. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
    readonly envelope?: ErrorEnvelope,
  ) {
    super(message);
  }
}

/** 4xx answers are permanent except 429 (it has had its retries by now); 5xx and network errors are transient. */
export function exitCodeForStatus(status: number): 1 | 2 {
  if (status === 429 || status >= 500) return 2;
  return 1;
}
