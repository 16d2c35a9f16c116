import { mapLimited } from '../common/concurrency';
import { MAX_FILE_BYTES } from '../common/limits';
import { FetchResponse, GuardedFetcher } from '../infra/http/guarded-fetcher';
import { isWebPage } from './media-types';
import { SourceFailure, sourceFailureOf } from './source-failure';

/** Each check gets this long, all phases included; a source slower than that to answer is unreachable. */
export const SOURCE_CHECK_TIMEOUT_MS = 8_000;
const CONNECT_TIMEOUT_MS = 3_000;
const READ_TIMEOUT_MS = 5_000;
/** Checks in flight at once for one request. */
const CHECK_CONCURRENCY = 8;

export interface SourceToCheck {
  url: string;
  pointer: string;
}

/**
 * The quick submit-time look at external sources, all at once (a few at a time): a HEAD, or a
 * one-byte ranged GET when HEAD is refused (signed S3/GCS URLs only accept the method they were
 * signed for). Resolves with the failure of the first source, in request order, that fails.
 */
export async function firstFailingSource(fetcher: GuardedFetcher, sources: SourceToCheck[]): Promise<SourceFailure | null> {
  const failures = await mapLimited(sources, CHECK_CONCURRENCY, (source) => checkSource(fetcher, source));
  return failures.find((failure) => failure !== null) ?? null;
}

export async function checkSource(fetcher: GuardedFetcher, { url, pointer }: SourceToCheck): Promise<SourceFailure | null> {
  const signal = AbortSignal.timeout(SOURCE_CHECK_TIMEOUT_MS);
  const ask = async (method: 'HEAD' | 'GET', headers: Record<string, string>) => {
    const response = await fetcher.request(url, {
      method,
      headers,
      signal,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      readTimeoutMs: READ_TIMEOUT_MS,
      maxBytes: MAX_FILE_BYTES,
    });
    response.body.destroy();
    return response;
  };
  try {
    let response = await ask('HEAD', {});
    if (response.status >= 400 && !isNotFound(response.status)) response = await ask('GET', { range: 'bytes=0-0' });
    return judge(response, pointer);
  } catch (error) {
    if (signal.aborted) {
      return new SourceFailure('invalid_source', `The source at ${pointer} did not answer within ${SOURCE_CHECK_TIMEOUT_MS / 1000} s`, pointer);
    }
    return sourceFailureOf(error, pointer);
  }
}

/** The declared size is Content-Length, or for a ranged answer the total after the slash of Content-Range. */
function judge(response: FetchResponse, pointer: string): SourceFailure | null {
  const { status, headers } = response;
  if (isNotFound(status)) return new SourceFailure('source_not_found', `The source at ${pointer} answered ${status} Not Found`, pointer);
  if (status < 200 || status > 299) return new SourceFailure('invalid_source', `The source at ${pointer} answered HTTP ${status}`, pointer);
  const total = status === 206 ? Number(/\/(\d+)$/.exec(headers['content-range'] ?? '')?.[1]) : Number(headers['content-length']);
  if (isWebPage(headers['content-type'])) {
    return new SourceFailure('invalid_source', `The source at ${pointer} is a web page (${headers['content-type']}), not a media file`, pointer);
  }
  if (total > MAX_FILE_BYTES) {
    return new SourceFailure('source_too_large', `The source at ${pointer} declares ${total} bytes, more than the 5 GiB limit`, pointer);
  }
  return null;
}

function isNotFound(status: number): boolean {
  return status === 404 || status === 410;
}
