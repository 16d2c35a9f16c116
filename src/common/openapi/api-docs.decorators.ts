import { applyDecorators, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiExtraModels, ApiHeader, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { ApiOperationOptions, HeaderObject } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency/idempotency.service';
import { ErrorEnvelopeDto, ValidationErrorItemDto } from './error-envelope.dto';

/** The security scheme's name in the document: an API key sent as a bearer token. */
export const API_KEY_SCHEME = 'ApiKey';
/** The scheme of GET /metrics: the operator's METRICS_TOKEN as a bearer token, not an API key. */
export const METRICS_TOKEN_SCHEME = 'MetricsToken';
/** The scheme of /v1/admin/: the operator's ADMIN_API_KEY as a bearer token, not an API key. */
export const ADMIN_KEY_SCHEME = 'AdminKey';

/**
 * Operations that need an API key (every route but the @Public() ones): a bad key is a 401, and a
 * key whose workspace has not verified its email is a 403 `email_not_verified` (the global guard).
 */
export function ApiKeyAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth(API_KEY_SCHEME), ApiErrors(401, 403));
}

/** What each error status means, the same words on every operation. */
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (e.g. invalid JSON)',
  401: 'Missing or invalid API key',
  402: 'Quota or plan limit exceeded',
  403: 'Not allowed for this key or account',
  404: 'No such resource in this workspace',
  405: 'Method not allowed',
  409: 'Conflicts with the resource state',
  413: 'Body too large',
  415: 'Unsupported content type',
  422: 'Invalid request; `details.errors` lists each problem',
  429: 'Rate limited; retry after `Retry-After` seconds',
  500: 'Internal error',
  503: 'Temporarily unavailable',
};

export const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
};

const RETRY_AFTER: Record<string, HeaderObject> = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
};

/** Documents each listed error status with the error envelope (and Retry-After on 429 and 503). */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto, ValidationErrorItemDto),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: ERROR_DESCRIPTIONS[status] ?? 'Error',
        content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) } } },
        headers: status === 429 ? { ...RATE_LIMIT_HEADERS, ...RETRY_AFTER } : status === 503 ? RETRY_AFTER : undefined,
      }),
    ),
  );
}

/** A JSON success response with its DTO (`isArray` for a bare list) and an optional description. */
export function ApiOk(status: number, type: Type<unknown>, description: string, options: { headers?: Record<string, HeaderObject> } = {}) {
  return ApiResponse({ status, type, description, headers: options.headers });
}

/** A route's documentation in one place: the operation (summary, description), its answer and its error statuses. */
export interface RouteDoc extends ApiOperationOptions {
  /** The success answer: the arguments of ApiOk. */
  ok?: Parameters<typeof ApiOk>;
  /** A 204 answer instead: its description. */
  noContent?: string;
  /** The error statuses, documented with the envelope (ApiErrors). */
  errors?: number[];
}

/** The stack of ApiOperation, ApiOk (or ApiNoContent) and ApiErrors that every route carried, as one decorator. */
export function ApiRoute({ ok, noContent, errors, ...operation }: RouteDoc): MethodDecorator {
  // Applied in the order the stacked decorators ran (bottom first), so the metadata merges the same way.
  return applyDecorators(
    ...(errors ? [ApiErrors(...errors)] : []),
    ...(noContent === undefined ? [] : [ApiNoContent(noContent)]),
    ...(ok ? [ApiOk(...ok)] : []),
    ApiOperation(operation),
  );
}

/** The optional `Idempotency-Key` request header of a create operation. */
export function ApiIdempotencyKey(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description: 'Same key and same body replays the first response (status 200); same key, other body is a 409',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source },
    }),
  );
}

/** A submit that queues a job: the Idempotency-Key header, `queued` (202) and the replay of the same key (200), both answering `type`. */
export function ApiSubmit(type: Type<unknown>, queued: string): MethodDecorator {
  return applyDecorators(ApiIdempotencyKey(), ApiOk(202, type, queued), ApiOk(200, type, 'Replay of an earlier submit with the same Idempotency-Key'));
}

export interface DocumentedRateLimit {
  scope: string;
  limit: number;
  windowSeconds: number;
  per: string;
}

/** `RATE_LIMIT_EXTENSION` lists an operation's limits; the document builder reads it to add headers. */
export const RATE_LIMIT_EXTENSION = 'x-rate-limit';

/** Documents a rate-limited operation: its limits and the 429 (RateLimit.* decorator applies it). */
export function ApiRateLimited(limits: DocumentedRateLimit[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtension(
      RATE_LIMIT_EXTENSION,
      limits.map((l) => ({ scope: l.scope, limit: l.limit, window_seconds: l.windowSeconds, per: l.per })),
    ),
    ApiErrors(429),
  );
}

/** A 204: no body. */
export function ApiNoContent(description: string): MethodDecorator & ClassDecorator {
  return ApiResponse({ status: 204, description });
}

/** Metadata key of ApiObjectRules. */
export const OBJECT_RULES_METADATA = 'vrs:openapi-object-rules';

/**
 * Rules on a whole body that the service checks in its handler, not field by field (e.g. "send at
 * least one field": `{ minProperties: 1 }`); written into the body's schema by the document builder.
 */
export function ApiObjectRules(rules: { minProperties?: number }): ClassDecorator {
  return (target) => Reflect.defineMetadata(OBJECT_RULES_METADATA, rules, target);
}
