import { SourceFailure, sourceFailureOf } from './source-failure';
import { SOURCE_CHECK_TIMEOUT_MS, type SourceToCheck } from './source-checks';
import { FetchError, GuardedFetcher } from '../infra/http/guarded-fetcher';
import { readFontFile, type FontFileFacts } from '../fonts/font-file';
import { FONT_FILE_MAX_BYTES } from '../fonts/font-files';

/** A font file's problem as a 422 `invalid_source` at its pointer, or its facts. */
export function fontProblem(bytes: Buffer, pointer: string): SourceFailure | FontFileFacts {
  try {
    return readFontFile(bytes);
  } catch (error) {
    return new SourceFailure('invalid_source', `The font at ${pointer} cannot be used: ${(error as Error).message}`, pointer);
  }
}

/**
 * A `fonts[].source_url` is read whole at submit (at most 20 MB) through the guarded fetcher and
 * read as a font, so a renamed picture or a cut file is refused before anything is queued.
 */
export async function checkFont(fetcher: GuardedFetcher, { url, pointer }: SourceToCheck): Promise<SourceFailure | null> {
  const signal = AbortSignal.timeout(SOURCE_CHECK_TIMEOUT_MS);
  try {
    const response = await fetcher.request(url, { method: 'GET', signal, connectTimeoutMs: 3_000, readTimeoutMs: 5_000, maxBytes: FONT_FILE_MAX_BYTES });
    if (response.status < 200 || response.status > 299) {
      response.body.destroy();
      const missing = response.status === 404 || response.status === 410;
      return new SourceFailure(missing ? 'source_not_found' : 'invalid_source', `The font at ${pointer} answered HTTP ${response.status}`, pointer);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
    const facts = fontProblem(Buffer.concat(chunks), pointer);
    return facts instanceof SourceFailure ? facts : null;
  } catch (error) {
    if (error instanceof FetchError && error.reason === 'too_large') {
      return new SourceFailure('source_too_large', `The font at ${pointer} is larger than ${FONT_FILE_MAX_BYTES / 1024 / 1024} MB`, pointer);
    }
    if (signal.aborted) return new SourceFailure('invalid_source', `The font at ${pointer} did not answer within ${SOURCE_CHECK_TIMEOUT_MS / 1000} s`, pointer);
    return sourceFailureOf(error, pointer);
  }
}
