import { Body, Controller, Get, HttpCode, Inject, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { sourceFailureOf } from '../assets/source-failure';
import { Public } from '../common/auth/decorators';
import { ApiError } from '../common/errors/api-error';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FetchError, GuardedFetcher } from '../infra/http/guarded-fetcher';
import { PlaygroundMediaDto } from './dto/playground-media.dto';
import { playgroundAsset, playgroundHeaders, playgroundIndex } from './playground-page';

/**
 * The largest source the playground's preview loads: the browser holds it in memory as a blob.
 * A render reads larger ones; the preview then shows the element as missing and says why.
 */
export const PLAYGROUND_MEDIA_MAX_BYTES = 256 * 1024 * 1024;

/** The page at /playground (built by Vite into dist/playground) and its media proxy. */
@Controller()
export class PlaygroundController {
  private readonly headers: Record<string, string>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly fetcher: GuardedFetcher,
  ) {
    this.headers = playgroundHeaders(config);
  }

  @Public()
  @Get('playground')
  @ApiExcludeEndpoint()
  page(@Res() res: Response) {
    const index = playgroundIndex();
    if (!index) throw new ApiError('unavailable', 'The playground is not built: run `npm run build`');
    res.set({ ...this.headers, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' }).send(index);
  }

  @Public()
  @Get('playground/assets/:name')
  @ApiExcludeEndpoint()
  asset(@Param('name') name: string, @Res() res: Response) {
    const asset = playgroundAsset(name);
    if (!asset) throw ApiError.notFound('Playground file');
    // Vite names every asset by its content hash: a name never changes meaning.
    res.set({ ...this.headers, 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=31536000, immutable' }).send(asset.body);
  }

  /**
   * The bytes of a source URL for the playground's preview, fetched by the guarded fetcher exactly
   * as a render fetches its sources: the same URL rule, the same refusal of private addresses
   * (at every redirect), the same failures in the same codes. The URL travels in the body, not
   * the query, so that signed source URLs stay out of access logs.
   */
  @Post('v1/playground/media')
  @HttpCode(200)
  @RateLimit('preview')
  @ApiTags('previews')
  @ApiKeyAuth()
  @ApiProduces('application/octet-stream')
  @ApiResponse({ status: 200, description: "The source's bytes, with its content type", content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } })
  @ApiErrors(413, 422, 429)
  @ApiOperation({ summary: "A source's bytes for a browser preview, fetched under the render's URL and address rules; failures are the render's (invalid_source, source_not_found, source_too_large)" })
  async media(@Body() body: PlaygroundMediaDto, @Res() res: Response) {
    let fetched;
    try {
      fetched = await this.fetcher.request(body.url, { maxBytes: PLAYGROUND_MEDIA_MAX_BYTES, connectTimeoutMs: 10_000, readTimeoutMs: 30_000 });
    } catch (error) {
      throw mediaError(error);
    }
    if (fetched.status < 200 || fetched.status > 299) {
      fetched.body.destroy();
      throw mediaError(new FetchError('http_status', `The source answered HTTP ${fetched.status}`, fetched.status));
    }
    const type = String(fetched.headers['content-type'] ?? 'application/octet-stream');
    res.status(200).set({ 'Content-Type': type, 'Cache-Control': 'private, no-store' });
    if (fetched.headers['content-length']) res.set('Content-Length', String(fetched.headers['content-length']));
    try {
      await pipeline(fetched.body, res);
    } catch {
      // The headers are gone; a cut body is what the browser sees, and it reports the source as unreadable.
      res.destroy();
    }
  }
}

/** A render's failure code for the source; the size cap is the preview's own. */
function mediaError(error: unknown): ApiError {
  if (error instanceof FetchError && error.reason === 'too_large') {
    return new ApiError('source_too_large', `The source is larger than the ${PLAYGROUND_MEDIA_MAX_BYTES / 1024 / 1024} MiB the playground previews`, { pointer: '/url' });
  }
  const failure = sourceFailureOf(error, '/url');
  return new ApiError(failure.code, failure.message, { pointer: failure.pointer });
}
