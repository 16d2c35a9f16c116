import { applyDecorators, CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { RateLimitResult, RateLimitService, rateLimitedError } from './rate-limit.service';
import { ApiRateLimited } from '../openapi/api-docs.decorators';
import { RATE_LIMITS, RateLimitScope } from './rate-limits';

const RATE_LIMIT_SCOPES = 'rate-limit:scopes';

/**
 * Applies the named limits of RATE_LIMITS to a route, and documents them: the 429, and the
 * limits as `x-rate-limit` (the OpenAPI document adds the RateLimit-* headers to its successes).
 */
export const RateLimit = (...scopes: RateLimitScope[]) =>
  applyDecorators(SetMetadata(RATE_LIMIT_SCOPES, scopes), ApiRateLimited(scopes.map((scope) => ({ scope, ...RATE_LIMITS[scope] }))));

/**
 * Runs before authentication so that unauthenticated floods are counted too. Sets
 * RateLimit-Limit/-Remaining/-Reset from the tightest limit; a 429 adds Retry-After.
 * The client address is `req.ip`, which honours X-Forwarded-For only as TRUST_PROXY allows.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RateLimitService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const scopes = this.reflector.get<RateLimitScope[] | undefined>(RATE_LIMIT_SCOPES, context.getHandler());
    if (!scopes?.length) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const results: RateLimitResult[] = [];
    for (const scope of scopes) {
      const subject = subjectFor(scope, req);
      if (subject !== null) results.push(await this.limits.hit(scope, subject));
    }
    if (results.length === 0) return true;
    const blocked = results.filter((r) => !r.allowed).sort((a, b) => b.resetSeconds - a.resetSeconds)[0];
    const shown = blocked ?? results.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    if (blocked) throw rateLimitedError(blocked);
    res.setHeader('RateLimit-Limit', String(shown.limit));
    res.setHeader('RateLimit-Remaining', String(shown.remaining));
    res.setHeader('RateLimit-Reset', String(shown.resetSeconds));
    return true;
  }
}

function subjectFor(scope: RateLimitScope, req: Request): string | null {
  if (RATE_LIMITS[scope].per === 'email') {
    const email = (req.body as { email?: unknown } | undefined)?.email;
    return typeof email === 'string' && email.trim() ? email.trim().toLowerCase() : null;
  }
  if (RATE_LIMITS[scope].per === 'workspace') return null; // counted by the service, after auth
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
