import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while serving a request carries (set by the request-log middleware). */
export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();
