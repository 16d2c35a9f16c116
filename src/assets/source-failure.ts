import { FetchError } from '../infra/http/guarded-fetcher';

export type SourceFailureCode = 'invalid_source' | 'source_not_found' | 'source_too_large';

/**
 * Why a source URL cannot be read, in the spec's codes, with the JSON pointer of the field that
 * names it. Submit answers it as a 422, a render fails with it, ingest reports it under
 * `ingest_failed`.
 */
export class SourceFailure extends Error {
  constructor(
    readonly code: SourceFailureCode,
    message: string,
    readonly pointer: string,
  ) {
    super(message);
  }
}

/** The guarded fetcher's reasons in the spec's terms: 404 (and 410) is not found, over 5 GiB too large, the rest invalid. */
export function sourceFailureOf(error: unknown, pointer: string): SourceFailure {
  if (error instanceof FetchError) {
    if (error.reason === 'http_status' && (error.status === 404 || error.status === 410)) {
      return new SourceFailure('source_not_found', `The source at ${pointer} answered ${error.status} Not Found`, pointer);
    }
    if (error.reason === 'too_large') return new SourceFailure('source_too_large', `The source at ${pointer} is larger than 5 GiB`, pointer);
    return new SourceFailure('invalid_source', `The source at ${pointer} could not be fetched: ${error.message}`, pointer);
  }
  return new SourceFailure('invalid_source', `The source at ${pointer} could not be fetched`, pointer);
}
