import { ConsoleLogger, LogLevel } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** Nest's console logger at LOG_LEVEL; LOG_FORMAT=json gives one JSON object a line (Cloud Logging). */
export function jsonLogger(config: AppConfig): ConsoleLogger {
  const upTo = LEVELS.indexOf(config.logLevel);
  return new ConsoleLogger({ json: config.logFormat === 'json', logLevels: LEVELS.slice(0, upTo + 1), colors: false });
}
