import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { RateLimitRepository } from './rate-limit.repository';
import { RATE_LIMITS, RateLimitScope } from './rate-limits';

export interface RateLimitResult {
  scope: RateLimitScope;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  allowed: boolean;
}

/**
 * Fixed-window counters in PostgreSQL: one upsert per hit, so every API process sharing the
 * database counts together. Subjects are hashed, so no address or email sits in the table.
 */
@Injectable()
export class RateLimitService {
  private readonly logger = new Logger('RateLimit');
  private lastPrune = 0;

  constructor(private readonly buckets: RateLimitRepository) {}

  async hit(scope: RateLimitScope, subject: string, now = Date.now()): Promise<RateLimitResult> {
    const { limit, windowSeconds } = RATE_LIMITS[scope];
    const windowMs = windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const hits = await this.buckets.hit(scope, digest(subject), new Date(windowStart));
    void this.prune(now);
    return {
      scope,
      limit,
      remaining: Math.max(0, limit - hits),
      resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
      allowed: hits <= limit,
    };
  }

  /** Counts a hit and throws the 429 when the subject is over the limit (for limits applied after auth). */
  async enforce(scope: RateLimitScope, subject: string): Promise<void> {
    const result = await this.hit(scope, subject);
    if (!result.allowed) throw rateLimitedError(result);
  }

  /** Drops expired windows now and then; the longest window is an hour. */
  private async prune(now: number): Promise<void> {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    try {
      await this.buckets.deleteWindowsBefore(new Date(now - 2 * 3600_000));
    } catch (error) {
      this.logger.warn(`Pruning rate-limit windows failed: ${(error as Error).message}`);
    }
  }
}

/** The 429 for a blocked result, with the headers clients use to wait. */
export function rateLimitedError(blocked: RateLimitResult): ApiError {
  const { limit, windowSeconds, per } = RATE_LIMITS[blocked.scope];
  return new ApiError(
    'rate_limited',
    `Rate limit of ${limit} requests per ${per} per ${windowSeconds === 60 ? 'minute' : 'hour'} reached for ${blocked.scope}; retry in ${blocked.resetSeconds} seconds`,
    { scope: blocked.scope, limit, window_seconds: windowSeconds, retry_after_seconds: blocked.resetSeconds },
    {
      'RateLimit-Limit': String(blocked.limit),
      'RateLimit-Remaining': String(blocked.remaining),
      'RateLimit-Reset': String(blocked.resetSeconds),
      'Retry-After': String(blocked.resetSeconds),
    },
  );
}

function digest(subject: string): string {
  return createHash('sha256').update(subject).digest('base64url');
}
