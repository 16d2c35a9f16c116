import { isStorageFull } from './storage-full';
import { storageRetryAfterSeconds, storageUnavailableOf } from './storage-unavailable';

/** A failure of what the service runs on, not of the request: answered 503 with Retry-After. */
export interface Outage {
  code: 'unavailable' | 'storage_full' | 'storage_unavailable';
  message: string;
  retryAfterSeconds: number;
}

/** node-postgres and PostgreSQL's words for a database that is gone, stalled or refusing connections. */
const DATABASE_MESSAGES = [
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Connection ended unexpectedly',
];
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** SQLSTATE: 57014 statement timeout, 57P01–57P03 shutting down / cannot connect now, 53300 too many connections, 08xxx connection exceptions. */
const DATABASE_STATES = /^(57014|57P0[123]|53300|08\d{3})$/;

/**
 * Whether `error` is an outage: the database stalled or unreachable (every pool has connect and
 * statement timeouts, so a stall surfaces here within seconds), the disk full, or the storage
 * driver refusing or not answering (checked first: an S3 endpoint's ECONNREFUSED is not the database's).
 * Null otherwise.
 */
export function outageOf(error: unknown): Outage | null {
  if (isStorageFull(error)) {
    return { code: 'storage_full', message: "The service's storage is full; nothing was stored. Try again once space is freed", retryAfterSeconds: 60 };
  }
  const storage = storageUnavailableOf(error);
  if (storage) {
    const what = storage.permanent ? 'is misconfigured' : 'is not answering';
    return { code: 'storage_unavailable', message: `The service's storage ${what}; the request was not completed. ${storage.message}`, retryAfterSeconds: storageRetryAfterSeconds(storage) };
  }
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message, driverError, cause } = current as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    const isDatabase =
      (typeof code === 'string' && (NETWORK_CODES.has(code) || DATABASE_STATES.test(code))) ||
      (typeof message === 'string' && DATABASE_MESSAGES.some((words) => message.includes(words)));
    if (isDatabase) {
      return { code: 'unavailable', message: 'The database is not answering; the request was not completed. Try again shortly', retryAfterSeconds: 5 };
    }
    current = driverError ?? cause;
  }
  return null;
}
