import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiRoute, METRICS_TOKEN_SCHEME } from '../common/openapi/api-docs.decorators';
import type { Response } from 'express';
import { bearerToken } from '../common/auth/bearer';
import { Public } from '../common/auth/decorators';
import { ApiError } from '../common/errors/api-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from './metrics.service';

/**
 * `GET /metrics` in the Prometheus text format, in every role (workers are where jobs run). Not
 * an API-key route: a scraper is no workspace. It answers only when METRICS_TOKEN is set and the
 * request brings it as `Authorization: Bearer` (docs/decisions/0018-progress-and-metrics.md); otherwise the
 * route does not exist (404), so a default installation exposes nothing.
 */
@ApiTags('system')
@ApiBearerAuth(METRICS_TOKEN_SCHEME)
@Public()
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @ApiRoute({ summary: 'Prometheus metrics', description: 'Only when the service has METRICS_TOKEN; 404 otherwise.', errors: [401, 404] })
  @ApiResponse({ status: 200, description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' }, example: 'http_requests_total{method="GET",route="/v1/health",status="200"} 3\n' } } })
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    const expected = this.config.metricsToken;
    if (!expected) throw new ApiError('not_found', 'No route GET /metrics');
    const given = Buffer.from(bearerToken(authorization) ?? '');
    const wanted = Buffer.from(expected);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
      throw new ApiError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    const body = await this.metrics.exposition();
    res.status(200).set('Content-Type', this.metrics.registry.contentType).send(body);
  }
}
