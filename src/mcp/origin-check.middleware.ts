import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { errorBody } from '../common/errors/api-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/**
 * The MCP specification's defence against DNS rebinding: a browser page may only reach `/mcp`
 * from an origin the deployment lists (MCP_ALLOWED_ORIGINS) or the service's own origin. Clients
 * that are not browsers send no Origin header and pass. Runs before authentication, so a foreign
 * page learns nothing about keys.
 */
@Injectable()
export class OriginCheckMiddleware implements NestMiddleware {
  private readonly allowed: Set<string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.allowed = new Set([new URL(config.publicBaseUrl).origin, ...config.mcpAllowedOrigins]);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const origin = req.headers.origin;
    if (origin === undefined || this.allowed.has(origin)) return next();
    res
      .status(403)
      .type('application/json')
      .json(errorBody('forbidden', `Origin ${origin} may not use /mcp; a deployment lists allowed origins in MCP_ALLOWED_ORIGINS`));
  }
}
