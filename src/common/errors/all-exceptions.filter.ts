import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MAX_JSON_DEPTH } from '../validation/request-input';
import { allowedMethods } from './allowed-methods';
import { ApiError, ErrorCode, errorBody } from './api-error';
import { outageOf } from './outage';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'invalid_request',
  429: 'rate_limited',
  503: 'unavailable',
};

/**
 * The only place that formats errors: every failure (ours, Nest's, Express's body parser,
 * unexpected crashes) leaves as the spec's envelope. No stack traces reach a response.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    const { status, body, headers } = this.toResponse(exception, req);
    if (status === 503 && !(exception instanceof ApiError)) {
      // An outage: one line per request, not a stack trace each.
      this.logger.warn(`${req.method} ${req.path}: ${body.error.code}: ${(exception as Error)?.message ?? String(exception)}`);
    } else if (status >= 500) {
      const err = exception as Error;
      this.logger.error(`${req.method} ${req.path} failed: ${err?.message ?? String(exception)}`, err?.stack);
    }
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    // A route may have set another type (markdown) before failing; errors are always JSON.
    res.status(status).type('application/json').json(body);
  }

  private toResponse(exception: unknown, req: Request) {
    if (exception instanceof ApiError) {
      return {
        status: exception.status,
        body: errorBody(exception.code, exception.message, exception.details),
        headers: exception.headers ?? {},
      };
    }
    // Express's body parser reports malformed JSON and oversized bodies with a `type`.
    const parserError = exception as { type?: string; status?: number; limit?: number; message?: string };
    if (parserError?.type === 'entity.parse.failed') {
      return {
        status: 422,
        body: errorBody('invalid_request', `Malformed JSON body: ${parserError.message}`, {
          errors: [{ type: 'json_invalid', loc: ['body'], msg: 'Body is not valid JSON', pointer: '' }],
        }),
        headers: {},
      };
    }
    if (parserError?.type === 'entity.too.large') {
      return {
        status: 413,
        body: errorBody('payload_too_large', `Request body exceeds the limit of ${parserError.limit} bytes`, {
          limit_bytes: parserError.limit,
        }),
        headers: {},
      };
    }
    if (parserError?.type === 'entity.too.deep') {
      return {
        status: 422,
        body: errorBody('invalid_request', parserError.message!, {
          errors: [{ type: 'json_too_deep', loc: ['body'], msg: parserError.message, pointer: '' }],
          max_depth: MAX_JSON_DEPTH,
        }),
        headers: {},
      };
    }
    if (parserError?.type === 'entity.invalid.utf8') {
      return {
        status: 422,
        body: errorBody('invalid_request', parserError.message!, {
          errors: [{ type: 'string_unicode', loc: ['body'], msg: parserError.message, pointer: '' }],
        }),
        headers: {},
      };
    }
    if (parserError?.type === 'encoding.unsupported' || parserError?.type === 'charset.unsupported') {
      const message =
        parserError.type === 'encoding.unsupported'
          ? `Content-Encoding "${req.headers['content-encoding']}" is not supported; send identity, gzip, deflate or br`
          : (parserError.message ?? 'Unsupported body charset');
      return { status: 422, body: errorBody('invalid_request', message), headers: {} };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      // Nest's not-found handler: no route took the request. A path served by other methods is a 405.
      if (status === 404) {
        const allow = allowedMethods(req);
        if (allow.length > 0) {
          return {
            status: 405,
            body: errorBody('method_not_allowed', `${req.method} is not served on ${req.path}; it answers ${allow.join(', ')}`, { allow }),
            headers: { Allow: allow.join(', ') },
          };
        }
      }
      const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal' : 'invalid_request');
      const message =
        status === 404 ? `No route ${req.method} ${req.path}` : exception.message || 'Request failed';
      return { status, body: errorBody(code, message), headers: {} };
    }
    // http-errors style client errors from Express and its parts: an undecodable compressed body,
    // a path that is not percent-encoded UTF-8, an aborted upload.
    const status = (exception as { status?: unknown })?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const unreadable = status === 400 || status === 415;
      const detail = (exception as Error).message;
      return {
        status: unreadable ? 422 : status,
        body: errorBody(unreadable ? 'invalid_request' : (CODE_BY_STATUS[status] ?? 'invalid_request'), `The request could not be read: ${detail}`),
        headers: {},
      };
    }
    const outage = outageOf(exception);
    if (outage) {
      return { status: 503, body: errorBody(outage.code, outage.message), headers: { 'Retry-After': String(outage.retryAfterSeconds) } as Record<string, string> };
    }
    return { status: 500, body: errorBody('internal', 'Unexpected error; it has been logged'), headers: {} };
  }
}
