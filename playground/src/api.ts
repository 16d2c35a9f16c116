// The service's REST API as the page uses it. The key goes only in the Authorization header of
// requests to the page's own origin, never in a URL (URLs end up in logs and histories).
import type { MediaInfo, RenderRequest, Violation } from '@video-render-service/composition';

export interface ErrorEnvelope {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope,
  ) {
    super(envelope.message);
  }
}

export interface JobView {
  id: string;
  status: 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
  progress_percent: number;
  progress_stage: string | null;
  output: { url?: string; width: number; height: number; duration: number } | null;
  error: ErrorEnvelope | null;
}

export interface DryRunSource {
  pointer: string;
  url: string;
  kind: string;
  status: 'ok' | 'failed' | 'not_checked';
  error: { code: string; message: string } | null;
  measured: boolean;
  note: string | null;
}

export interface DryRun {
  ok: boolean;
  submit_error: (ErrorEnvelope & { status: number }) | null;
  violations: Violation[];
  estimate: { render_minutes: number; frames: number } | null;
  sources_checked: 'all' | 'some' | 'none';
  sources: DryRunSource[];
  /** What the render will measure of each source (length, size): the Player's `media`. */
  media: Record<string, MediaInfo>;
}

async function call<T>(key: string, path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(path, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
  });
  if (!res.ok) throw new ApiFailure(res.status, await envelopeOf(res));
  return (await res.json()) as T;
}

async function envelopeOf(res: Response): Promise<ErrorEnvelope> {
  try {
    const body = (await res.json()) as { error?: ErrorEnvelope };
    if (body.error) return body.error;
  } catch {
    // Not JSON: described below.
  }
  return { code: 'http_error', message: `The service answered ${res.status}` };
}

/**
 * POST /v1/preview in `dry_run` mode: every check a submit makes, nothing stored or metered. The
 * sources get a few seconds unless `checkSources` (then the answer waits for all of them).
 */
export function dryRun(key: string, request: unknown, signal: AbortSignal, checkSources?: true): Promise<DryRun> {
  const body = { ...(request as object), preview: { mode: 'dry_run', ...(checkSources ? { check_sources: true } : {}) } };
  return call<DryRun>(key, '/v1/preview', { method: 'POST', body: JSON.stringify(body), signal });
}

export function submitRender(key: string, request: RenderRequest): Promise<JobView> {
  return call<JobView>(key, '/v1/renders', { method: 'POST', body: JSON.stringify(request) });
}

export function downloadUrl(key: string, id: string): Promise<{ url: string }> {
  return call<{ url: string }>(key, `/v1/renders/${encodeURIComponent(id)}/download`);
}

/** A source's bytes through the service's guarded fetcher (POST /v1/playground/media). */
export async function proxiedMedia(key: string, url: string, signal: AbortSignal): Promise<Blob> {
  const res = await fetch('/v1/playground/media', {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url }),
    signal,
  });
  if (!res.ok) throw new ApiFailure(res.status, await envelopeOf(res));
  return res.blob();
}

/**
 * GET /v1/renders/{id}/events, read with fetch: EventSource cannot send an Authorization header.
 * Calls `onJob` with the Job of every `status` and `progress` event until the stream ends.
 */
export function followRender(key: string, id: string, onJob: (job: JobView) => void, signal: AbortSignal): Promise<void> {
  return followEvents(key, `/v1/renders/${encodeURIComponent(id)}/events`, onJob, signal);
}

export interface BatchView {
  id: string;
  status: 'queued' | 'processing' | 'completed' | 'cancelled';
  row_count: number;
  counts: { queued: number; processing: number; completed: number; failed: number; cancelled: number };
  progress_percent: number;
  completed_at: string | null;
}

export interface BatchRender extends JobView {
  batch_row: number;
  output: (JobView['output'] & { reused_from?: string }) | null;
}

export function listProjects(key: string): Promise<{ data: { id: string; name: string; version: number }[] }> {
  return call(key, '/v1/projects?limit=100');
}

/** POST /v1/projects/{id}/batches with the CSV as it is (the service names a bad line and column). */
export function submitBatchCsv(key: string, projectId: string, csv: string, outputFilename: string): Promise<BatchView> {
  const query = outputFilename ? `?output_filename=${encodeURIComponent(outputFilename)}` : '';
  return call<BatchView>(key, `/v1/projects/${encodeURIComponent(projectId)}/batches${query}`, { method: 'POST', body: csv, headers: { 'Content-Type': 'text/csv' } });
}

export function getBatch(key: string, id: string): Promise<BatchView & { renders: { data: BatchRender[] } }> {
  return call(key, `/v1/batches/${encodeURIComponent(id)}?limit=200`);
}

export function cancelBatch(key: string, id: string): Promise<BatchView> {
  return call<BatchView>(key, `/v1/batches/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
}

/** GET /v1/batches/{id}/events: the Batch of every `status` and `progress` event until every row has ended. */
export function followBatch(key: string, id: string, onBatch: (batch: BatchView) => void, signal: AbortSignal): Promise<void> {
  return followEvents(key, `/v1/batches/${encodeURIComponent(id)}/events`, onBatch, signal);
}

async function followEvents<T>(key: string, path: string, onData: (data: T) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(path, { headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) throw new ApiFailure(res.status, await envelopeOf(res));
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value.replace(/\r\n?/g, '\n');
    // Events end with a blank line; a partial one waits for the next chunk.
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) onData(JSON.parse(data) as T);
    }
  }
}
