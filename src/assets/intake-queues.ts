/** Reads freshly stored bytes with ffprobe; payload `{asset_id}`. */
export const ASSET_PROBE_QUEUE = 'asset-probe';

export interface AssetProbePayload {
  asset_id: string;
}

/** Copies a job's external files into storage before it is queued for rendering; payload `{job_id}`. */
export const INGEST_QUEUE = 'ingest';
/** Where pg-boss moves an ingest whose every attempt crashed, so the job still ends (`ingest_failed`). */
export const INGEST_DEAD_LETTER_QUEUE = 'ingest-dead';
/** Attempts after the first when a worker crashes or hits an unexpected error (not a failed copy). */
export const INGEST_RETRY_LIMIT = 2;

export interface IngestPayload {
  job_id: string;
}
