import { randomUUID } from 'node:crypto';
import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AuthenticatedRequest } from '../auth/decorators';
import { ApiError } from '../errors/api-error';
import { requestContext } from './request-context';

/** Agents send X-Run-Id to tie their calls together; it must be a short, log-safe token. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * One log line per request: method, path (no query string), status, time, client address,
 * workspace and run id. Headers and bodies are never logged, so keys and codes stay out of logs.
 */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  private readonly logger = new Logger('HTTP');

  use(req: AuthenticatedRequest, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const runIdHeader = req.headers['x-run-id'];
    const runId = Array.isArray(runIdHeader) ? runIdHeader[0] : runIdHeader;
    const runIdValid = runId === undefined || RUN_ID_PATTERN.test(runId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const entry = {
        request_id: requestId,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        duration_ms: Math.round(ms * 10) / 10,
        ip: req.ip,
        workspace_id: req.workspace?.id ?? null,
        run_id: runIdValid ? (runId ?? null) : null,
      };
      this.logger.log(JSON.stringify(entry));
    });
    // Everything this request logs from here on carries its id (see logger.ts).
    requestContext.run({ requestId }, () => this.continue(next, runIdValid));
  }

  private continue(next: NextFunction, runIdValid: boolean): void {
    if (!runIdValid) {
      next(
        ApiError.validation([
          {
            type: 'string_pattern_mismatch',
            loc: ['header', 'x-run-id'],
            msg: 'X-Run-Id must be 1-128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
            pointer: '',
          },
        ]),
      );
      return;
    }
    next();
  }
}
