/** What the commands need of the service; implemented over the typed client in client-api.ts. */
export interface Job {
  id: string;
  kind: 'render' | 'task';
  status: 'ingesting' | 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
  progress_percent: number;
  progress_stage: string | null;
  output: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  [key: string]: unknown;
}

export interface UploadedAsset {
  source_url: string;
  upload_url: string;
  expires_at: string;
  content_type: string;
  bytes: number;
}

export interface Api {
  workspace(): Promise<Record<string, unknown>>;
  submitRender(body: unknown, idempotencyKey?: string): Promise<Job & { ok: boolean; violations: unknown[] }>;
  preview(body: unknown): Promise<Record<string, unknown>>;
  getJob(id: string): Promise<Job>;
  cancelJob(id: string): Promise<Job>;
  downloadUrl(id: string): Promise<string>;
  /** Streams the artifact of a completed render to `file`; returns its size. */
  download(id: string, file: string): Promise<number>;
  uploadFile(file: string, contentType?: string): Promise<UploadedAsset>;
  /** POST /v1/workspace/assets: the service downloads, probes and stores the file; answers the asset. */
  uploadUrl(url: string, idempotencyKey?: string): Promise<Record<string, unknown> & { source_url: string; content_type: string; size_bytes: number | null }>;
  transcribe(body: unknown): Promise<Job>;
  captions(id: string, format: 'srt' | 'vtt'): Promise<string>;
  listProjects(): Promise<Record<string, unknown>>;
  getProject(id: string, full: boolean): Promise<Record<string, unknown>>;
  createProject(body: unknown): Promise<Record<string, unknown>>;
  patchProject(id: string, body: unknown): Promise<Record<string, unknown>>;
  renderProject(id: string, body: unknown): Promise<Job & { ok: boolean; violations: unknown[] }>;
  /** POST /v1/projects/{id}/batches with a CSV body (header row = variable names). */
  createBatchCsv(projectId: string, csv: Buffer, options: BatchOptions): Promise<Batch>;
  getBatch(id: string): Promise<Batch & { renders: { data: Job[] } }>;
  cancelBatch(id: string): Promise<Batch>;
}

/** A batch of project renders (GET /v1/batches/{id}). */
export interface Batch {
  id: string;
  project_id: string;
  status: 'queued' | 'processing' | 'completed' | 'cancelled';
  row_count: number;
  counts: Record<'queued' | 'processing' | 'completed' | 'failed' | 'cancelled', number>;
  progress_percent: number;
  completed_at: string | null;
  [key: string]: unknown;
}

export interface BatchOptions {
  output_filename?: string;
  idempotencyKey?: string;
}

export const TERMINAL = ['completed', 'failed', 'cancelled'];
