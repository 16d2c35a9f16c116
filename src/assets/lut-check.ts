import { CubeParseError, MAX_LUT_BYTES, parseCube } from '../../composition/src/schema';
import { FetchError, GuardedFetcher } from '../infra/http/guarded-fetcher';
import { SOURCE_CHECK_TIMEOUT_MS, SourceToCheck } from './source-checks';
import { SourceFailure, sourceFailureOf } from './source-failure';

/**
 * A `lut_url` is read whole at submit (LUTs are small) and parsed, so a bad cube is refused with
 * 422 invalid_source naming the line, instead of failing the render later.
 */
export async function checkLut(fetcher: GuardedFetcher, { url, pointer }: SourceToCheck): Promise<SourceFailure | null> {
  const signal = AbortSignal.timeout(SOURCE_CHECK_TIMEOUT_MS);
  try {
    const response = await fetcher.request(url, { method: 'GET', signal, connectTimeoutMs: 3_000, readTimeoutMs: 5_000, maxBytes: MAX_LUT_BYTES });
    if (response.status === 404 || response.status === 410) {
      response.body.destroy();
      return new SourceFailure('source_not_found', `The LUT at ${pointer} answered ${response.status} Not Found`, pointer);
    }
    if (response.status < 200 || response.status > 299) {
      response.body.destroy();
      return new SourceFailure('invalid_source', `The LUT at ${pointer} answered HTTP ${response.status}`, pointer);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
    return lutProblem(Buffer.concat(chunks).toString('utf8'), pointer);
  } catch (error) {
    if (error instanceof FetchError && error.reason === 'too_large') {
      return new SourceFailure('invalid_source', `The LUT at ${pointer} is larger than ${MAX_LUT_BYTES / 1024 / 1024} MB`, pointer);
    }
    if (signal.aborted) return new SourceFailure('invalid_source', `The LUT at ${pointer} did not answer within ${SOURCE_CHECK_TIMEOUT_MS / 1000} s`, pointer);
    return sourceFailureOf(error, pointer);
  }
}

/** Null when `text` is a usable .cube file, else why not (with the line number). */
export function lutProblem(text: string, pointer: string): SourceFailure | null {
  try {
    parseCube(text);
    return null;
  } catch (error) {
    if (error instanceof CubeParseError) return new SourceFailure('invalid_source', `The LUT at ${pointer} is not a valid .cube file: ${error.message}`, pointer);
    throw error;
  }
}
