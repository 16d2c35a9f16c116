import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { bearerToken } from '../common/auth/bearer';
import { ApiError } from '../common/errors/api-error';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The /v1/admin/ routes: without ADMIN_API_KEY they do not exist (404 like any unknown route);
 * with it, only `Authorization: Bearer <ADMIN_API_KEY>` passes, and a workspace key is 401. The
 * key is compared as SHA-256 digests in constant time (equal lengths, no early exit), and is
 * never logged.
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly expected: Buffer | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.adminApiKey === null ? null : digest(config.adminApiKey);
  }

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (this.expected === null) throw new ApiError('not_found', `No route ${req.method} ${req.path}`);
    const given = bearerToken(req.headers.authorization);
    if (given === null || !timingSafeEqual(digest(given), this.expected)) {
      throw new ApiError('unauthorized', "Admin routes need Authorization: Bearer <ADMIN_API_KEY>, the operator's key; workspace API keys are not accepted here");
    }
    return true;
  }
}
