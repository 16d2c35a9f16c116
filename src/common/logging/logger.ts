import { ConsoleLogger, LogLevel } from '@nestjs/common';
import { requestContext } from './request-context';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/**
 * Nest's console logger that adds `request_id` to every line written while a request is served
 * (errors and warnings of services included), so one request's lines can be found together.
 */
class RequestAwareLogger extends ConsoleLogger {
  protected printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, unknown>,
  ): void {
    const requestId = requestContext.getStore()?.requestId;
    super.printMessages(messages, context, logLevel, writeStreamType, errorStack, requestId ? { ...params, request_id: requestId } : params);
  }
}

/** The service's logger at LOG_LEVEL; LOG_FORMAT=json gives one JSON object a line (Cloud Logging). */
export function jsonLogger(config: { logLevel: Exclude<LogLevel, 'fatal'>; logFormat: 'text' | 'json' }): ConsoleLogger {
  const upTo = LEVELS.indexOf(config.logLevel);
  return new RequestAwareLogger({ json: config.logFormat === 'json', logLevels: LEVELS.slice(0, upTo + 1), colors: false });
}
