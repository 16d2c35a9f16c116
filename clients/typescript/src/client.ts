import createFetchClient, { type Client } from 'openapi-fetch';
import { JobFailedError, VideoRenderApiError, type Job } from './errors';
import { readEventStream } from './events';
import type { components, paths } from './generated/openapi';

export type RenderRequest = components['schemas']['RenderRequest'];
export type SubmittedJob = components['schemas']['SubmittedJob'];
export type DownloadLink = components['schemas']['DownloadLink'];
export type JobKind = Job['kind'];
export type JobStatus = Job['status'];

export interface ClientOptions {
  /** The service's origin, e.g. `https://video.example.com` (paths start with `/v1`). */
  baseUrl: string;
  /** An API key of the workspace (`sk_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
}

export interface WaitOptions {
  /** Called with the job each time its status or progress changes. */
  onProgress?: (job: Job) => void;
  /** `events` (default): Server-Sent Events, with polling when the stream is cut; `polling`: GET every pollIntervalMs. */
  via?: 'events' | 'polling';
  /** Polling interval, 1000 ms by default. */
  pollIntervalMs?: number;
  /** Give up (rejecting with a TimeoutError) after this long; no limit by default. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface SubmitOptions {
  /** Same key and same body replays the first answer instead of rendering twice. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface DownloadedFile {
  bytes: Uint8Array;
  contentType: string | null;
  /** From Content-Disposition, when the service names the file. */
  filename: string | null;
  /** The signed URL the bytes came from (short-lived). */
  url: string;
}

export interface RenderResult {
  job: Job;
  file: DownloadedFile;
}

const TERMINAL: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/** The typed API plus the helpers of the common flow. */
export interface VideoRenderClient {
  /** Every operation of the OpenAPI document, typed (openapi-fetch): `api.GET('/v1/renders/{id}', …)`. */
  readonly api: Client<paths>;
  /** POST /v1/renders: the queued job with `ok` and `violations`. */
  submitRender(request: RenderRequest, options?: SubmitOptions): Promise<SubmittedJob>;
  getJob(kind: JobKind, id: string, options?: { signal?: AbortSignal }): Promise<Job>;
  /** Resolves with the completed job; rejects with JobFailedError when it fails or is cancelled. */
  waitForJob(kind: JobKind, id: string, options?: WaitOptions): Promise<Job>;
  /** Downloads a completed render's artifact through a fresh signed URL. */
  downloadRender(id: string, options?: { signal?: AbortSignal }): Promise<DownloadedFile>;
  /** Submit, wait (with progress), download: the whole flow in one call. */
  render(request: RenderRequest, options?: SubmitOptions & WaitOptions): Promise<RenderResult>;
}

/**
 * Unwraps an openapi-fetch result: the data of a success, else a VideoRenderApiError carrying the
 * service's error envelope. Use it with `client.api` calls.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  throw VideoRenderApiError.from(result.response, result.error);
}

export function createClient(options: ClientOptions): VideoRenderClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const authorization = `Bearer ${options.apiKey}`;
  const api = createFetchClient<paths>({ baseUrl, fetch: fetchImpl, headers: { Authorization: authorization } });

  const getJob = async (kind: JobKind, id: string, opts: { signal?: AbortSignal } = {}): Promise<Job> =>
    kind === 'render'
      ? unwrap(await api.GET('/v1/renders/{id}', { params: { path: { id } }, signal: opts.signal }))
      : unwrap(await api.GET('/v1/tasks/{id}', { params: { path: { id } }, signal: opts.signal })) as Job;

  /** Follows the job's event stream; returns the last job seen (final unless the stream was cut). */
  const followEvents = async (kind: JobKind, id: string, onJob: (job: Job) => void, signal: AbortSignal): Promise<Job | null> => {
    const response = await fetchImpl(`${baseUrl}/v1/${kind === 'render' ? 'renders' : 'tasks'}/${encodeURIComponent(id)}/events`, {
      headers: { Authorization: authorization, Accept: 'text/event-stream' },
      signal,
    });
    if (!response.ok) throw VideoRenderApiError.from(response, await readBody(response));
    if (!response.body) return null;
    let last: Job | null = null;
    for await (const event of readEventStream(response.body)) {
      if (event.event !== 'status' && event.event !== 'progress') continue;
      last = JSON.parse(event.data) as Job;
      onJob(last);
      if (TERMINAL.includes(last.status)) break;
    }
    return last;
  };

  const waitForJob = async (kind: JobKind, id: string, opts: WaitOptions = {}): Promise<Job> => {
    const controller = new AbortController();
    const abort = () => controller.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', abort, { once: true });
    const timer = opts.timeoutMs === undefined ? null : setTimeout(() => controller.abort(new DOMException(`Job ${id} did not finish within ${opts.timeoutMs} ms`, 'TimeoutError')), opts.timeoutMs);
    let seen = '';
    const onJob = (job: Job) => {
      // The same state twice (a reconnect, a poll without change) is reported once.
      const key = `${job.status}/${job.progress_percent}/${job.progress_stage ?? ''}`;
      if (key !== seen) opts.onProgress?.(job);
      seen = key;
    };
    try {
      let useEvents = (opts.via ?? 'events') === 'events';
      for (;;) {
        controller.signal.throwIfAborted();
        let job: Job | null = null;
        if (useEvents) {
          // A stream cut by a proxy ends early: carry on by polling.
          job = await followEvents(kind, id, onJob, controller.signal);
          useEvents = false;
        }
        if (!job || !TERMINAL.includes(job.status)) {
          job = await getJob(kind, id, { signal: controller.signal });
          onJob(job);
        }
        if (job.status === 'completed') return job;
        if (TERMINAL.includes(job.status)) throw new JobFailedError(job);
        await delay(opts.pollIntervalMs ?? 1000, controller.signal);
      }
    } catch (error) {
      // An abort surfaces as its reason (the TimeoutError, or the caller's signal reason).
      if (controller.signal.aborted) throw controller.signal.reason;
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', abort);
    }
  };

  const downloadRender = async (id: string, opts: { signal?: AbortSignal } = {}): Promise<DownloadedFile> => {
    const link = unwrap(await api.GET('/v1/renders/{id}/download', { params: { path: { id } }, signal: opts.signal }));
    // A signed URL carries its own authorisation; the API key is never sent to storage.
    const url = new URL(link.url, `${baseUrl}/`).toString();
    const response = await fetchImpl(url, { signal: opts.signal });
    if (!response.ok) throw VideoRenderApiError.from(response, await readBody(response));
    const disposition = response.headers.get('content-disposition');
    const filename = disposition ? (/filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] ?? null) : null;
    return {
      bytes: new Uint8Array(await response.arrayBuffer()),
      contentType: response.headers.get('content-type'),
      filename: filename ? decodeURIComponent(filename) : null,
      url,
    };
  };

  const submitRender = async (request: RenderRequest, opts: SubmitOptions = {}): Promise<SubmittedJob> =>
    unwrap(
      await api.POST('/v1/renders', {
        body: request,
        params: { header: opts.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': opts.idempotencyKey } },
        signal: opts.signal,
      }),
    );

  return {
    api,
    submitRender,
    getJob,
    waitForJob,
    downloadRender,
    async render(request, opts = {}) {
      const submitted = await submitRender(request, opts);
      const job = await waitForJob('render', submitted.id, opts);
      return { job, file: await downloadRender(job.id, { signal: opts.signal }) };
    },
  };
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
