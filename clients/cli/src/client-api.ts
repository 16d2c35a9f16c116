import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { createClient, unwrap, VideoRenderApiError } from '@video-render-service/client';
import type { Api, Batch, Job, UploadedAsset } from './api.js';
import type { Settings } from './config.js';
import { CliError, exitCodeForStatus } from './errors.js';

/** Retries of a 429 or 503 before it counts as a transient failure (exit 2). */
const RETRIES = 3;
const MAX_RETRY_WAIT_S = 10;
/** How long an upload may take to be probed before the CLI gives up (a transient failure). */
const ASSET_READY_TIMEOUT_MS = 120_000;

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4', '.mov': 'video/quicktime', '.webm': 'video/webm', '.mkv': 'video/x-matroska',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.m4a': 'audio/mp4', '.ogg': 'audio/ogg', '.flac': 'audio/flac',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.svg': 'image/svg+xml',
  '.cube': 'text/plain',
};

/** Turns what the typed client throws into the CLI's failure with its exit code. */
function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof VideoRenderApiError) {
    const envelope = error.envelope ?? { error: { code: error.code, message: error.message } };
    return new CliError(`${error.status} ${error.code}: ${error.message}`, exitCodeForStatus(error.status), envelope as CliError['envelope']);
  }
  // fetch rejects with a TypeError when the service cannot be reached.
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return new CliError(`Cannot reach the service: ${cause ?? (error as Error)?.message ?? String(error)}`, 2, {
    error: { code: 'unavailable', message: `Cannot reach the service${cause ? ` (${cause})` : ''}` },
  });
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      // 429, 503 and a connection that failed are worth another try; other answers are final.
      const apiError = error instanceof VideoRenderApiError ? error : null;
      const network = !apiError && !(error instanceof CliError);
      const retryable = (network || apiError?.status === 429 || apiError?.status === 503) && attempt < RETRIES;
      if (!retryable) throw toCliError(error);
      const wait = Math.min(MAX_RETRY_WAIT_S, apiError?.retryAfterSeconds ?? 2 ** attempt);
      process.stderr.write(`vrs: ${apiError ? apiError.code : 'network error'}, retrying in ${wait} s\n`);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  }
}

/** The commands' view of the service, over the typed client (`@video-render-service/client`). */
export function createApi(settings: Settings): Api {
  const client = createClient({ baseUrl: settings.url, apiKey: settings.key ?? '' });
  const { api } = client;
  const kindOf = (id: string) => (id.startsWith('task_') ? 'task' : 'render') as 'task' | 'render';

  return {
    workspace: () => call(async () => unwrap(await api.GET('/v1/workspace')) as unknown as Record<string, unknown>),
    submitRender: (body, idempotencyKey) =>
      call(async () => (await client.submitRender(body as never, { idempotencyKey })) as unknown as Job & { ok: boolean; violations: unknown[] }),
    preview: (body) => call(async () => unwrap(await api.POST('/v1/preview', { body: body as never })) as unknown as Record<string, unknown>),
    getJob: (id) => call(async () => (await client.getJob(kindOf(id), id)) as unknown as Job),
    cancelJob: (id) =>
      call(async () =>
        kindOf(id) === 'task'
          ? (unwrap(await api.POST('/v1/tasks/{id}/cancel', { params: { path: { id } } })) as unknown as Job)
          : (unwrap(await api.POST('/v1/renders/{id}/cancel', { params: { path: { id } } })) as unknown as Job),
      ),
    downloadUrl: (id) => call(async () => unwrap(await api.GET('/v1/renders/{id}/download', { params: { path: { id } } })).url),
    download: (id, file) =>
      call(async () => {
        const downloaded = await client.downloadRender(id);
        await writeFile(file, downloaded.bytes);
        return downloaded.bytes.byteLength;
      }),
    uploadFile: (file, contentType) =>
      call(async (): Promise<UploadedAsset> => {
        const bytes = await readFile(file).catch((error: Error) => {
          throw new CliError(`Cannot read ${file}: ${error.message}`, 1);
        });
        const type = contentType ?? CONTENT_TYPES[path.extname(file).toLowerCase()];
        if (!type) throw new CliError(`Cannot tell the type of ${file}; pass --content-type`, 1);
        const slot = unwrap(await api.POST('/v1/uploads', { body: { content_type: type, filename: path.basename(file) } as never })) as unknown as {
          upload_url: string;
          source_url: string;
          expires_at: string;
        };
        // The signed upload URL carries its own authorisation; the key is not sent to storage.
        const put = await fetch(slot.upload_url, { method: 'PUT', headers: { 'Content-Type': type }, body: bytes });
        if (!put.ok) {
          const text = await put.text();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not the envelope: VideoRenderApiError keeps the text
          }
          throw VideoRenderApiError.from(put, body);
        }
        // The service probes an upload before renders and tasks may use it; wait until it is present.
        const assetId = (slot as { asset_id?: string }).asset_id;
        for (let started = Date.now(); assetId; ) {
          const asset = unwrap(await api.GET('/v1/workspace/assets/{asset_id}', { params: { path: { asset_id: assetId } } })) as unknown as { status: string };
          if (asset.status === 'present') break;
          if (asset.status === 'unreadable') throw new CliError(`The service could not read ${file} as media`, 1);
          if (Date.now() - started > ASSET_READY_TIMEOUT_MS) throw new CliError(`${file} was still being probed after ${ASSET_READY_TIMEOUT_MS / 1000} s`, 2);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        return { ...slot, content_type: type, bytes: bytes.byteLength };
      }),
    uploadUrl: (url, idempotencyKey) =>
      call(async () => {
        const answer = await api.POST('/v1/workspace/assets', {
          body: { url },
          params: { header: idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey } },
        });
        return unwrap(answer) as unknown as Record<string, unknown> & { source_url: string; content_type: string; size_bytes: number | null };
      }),
    transcribe: (body) => call(async () => unwrap(await api.POST('/v1/tasks/transcribe', { body: body as never })) as unknown as Job),
    captions: (id, format) =>
      call(async () => unwrap(await api.GET('/v1/tasks/{id}/captions', { params: { path: { id }, query: { format } }, parseAs: 'text' })) as unknown as string),
    listProjects: () => call(async () => unwrap(await api.GET('/v1/projects')) as unknown as Record<string, unknown>),
    getProject: (id, full) =>
      call(async () => unwrap(await api.GET('/v1/projects/{id}', { params: { path: { id }, query: { view: full ? 'full' : 'summary' } } })) as unknown as Record<string, unknown>),
    createProject: (body) => call(async () => unwrap(await api.POST('/v1/projects', { body: body as never })) as unknown as Record<string, unknown>),
    patchProject: (id, body) =>
      call(async () => unwrap(await api.POST('/v1/projects/{id}/ops', { params: { path: { id } }, body: body as never })) as unknown as Record<string, unknown>),
    renderProject: (id, body) =>
      call(async () => unwrap(await api.POST('/v1/projects/{id}/renders', { params: { path: { id } }, body: body as never })) as unknown as Job & { ok: boolean; violations: unknown[] }),
    createBatchCsv: (projectId, csv, options) =>
      call(async () => {
        const answer = await api.POST('/v1/projects/{id}/batches', {
          params: {
            path: { id: projectId },
            query: options.output_filename === undefined ? undefined : { output_filename: options.output_filename },
            header: options.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': options.idempotencyKey },
          },
          // The CSV goes as it is: the service reads its lines and reports problems by line and column.
          body: csv as never,
          bodySerializer: (body: unknown) => body as Buffer,
          headers: { 'Content-Type': 'text/csv' },
        } as never);
        return unwrap(answer) as unknown as Batch;
      }),
    getBatch: (id) =>
      call(async () => unwrap(await api.GET('/v1/batches/{id}', { params: { path: { id }, query: { limit: 200 } } })) as unknown as Batch & { renders: { data: Job[] } }),
    cancelBatch: (id) => call(async () => unwrap(await api.POST('/v1/batches/{id}/cancel', { params: { path: { id } } })) as unknown as Batch),
  };
}
