import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, TimestampOrNullColumn, UpdatedAtColumn, WorkspaceIdColumn } from '../infra/database/columns';
import type { UploadKind } from '../infra/media/media-types';

/** video, audio, image, or font (uploaded font files only: never ingested or imported). */
export type AssetKind = UploadKind;

/**
 * Where an asset is in its life:
 * - `reserved`: an upload slot exists; no bytes have been seen in storage yet.
 * - `probing`: the bytes are stored; ffprobe has not read them yet.
 * - `ingesting`: an external file is being copied in for a render (`ingest_external`).
 * - `present`: stored and probed (a font: read as a font).
 * - `unreadable`: stored, but ffprobe could not decode them as their kind (a font: not a font), or they were larger
 *   than the upload limit (an S3 upload that declared no size; the bytes are then deleted).
 */
export const ASSET_STATUSES = ['reserved', 'probing', 'ingesting', 'present', 'unreadable'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

/** Why an asset is `unreadable`, as its view and the requests naming it say (`invalid_source`: a font upload that is not a font). */
export const ASSET_ERROR_CODES = ['codec_unsupported', 'source_too_large', 'invalid_source'] as const;
export type AssetErrorCode = (typeof ASSET_ERROR_CODES)[number];

/** bigint columns come back from pg as strings; sizes stay far below 2^53. */
const bigintAsNumber = {
  to: (value: number | null) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** A file the workspace keeps in the service's storage: uploaded, or copied from an external URL. */
@Entity('assets')
export class Asset {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text')
  kind: AssetKind;

  @Column('text')
  status: AssetStatus;

  /** The external URL this asset is the stored copy of; null for uploads. */
  @Column('text', { name: 'ingested_from', nullable: true })
  ingestedFrom: string | null;

  @Column('text', { name: 'storage_key' })
  storageKey: string;

  @Column('text', { name: 'content_type' })
  contentType: string;

  /** The upload's filename, the last segment of the ingested URL, or else the storage key. */
  @Column('text')
  name: string;

  @Column('bigint', { name: 'size_bytes', nullable: true, transformer: bigintAsNumber })
  sizeBytes: number | null;

  /** Seconds; client-supplied at reservation until the probe replaces it. */
  @Column('double precision', { nullable: true })
  duration: number | null;

  /** A font's family name, read from the file (`name` table) when it landed; null for media. */
  @Column('text', { name: 'font_family', nullable: true })
  fontFamily: string | null;

  @Column('integer', { nullable: true })
  width: number | null;

  @Column('integer', { nullable: true })
  height: number | null;

  @Column('text', { name: 'video_codec', nullable: true })
  videoCodec: string | null;

  @Column('text', { name: 'audio_codec', nullable: true })
  audioCodec: string | null;

  /** Why the probe found the bytes unreadable. */
  @Column('text', { name: 'probe_error', nullable: true })
  probeError: string | null;

  /** With `unreadable`: null when the probe could not decode the bytes, `source_too_large` when they were above the upload limit. */
  @Column('text', { name: 'error_code', nullable: true })
  errorCode: AssetErrorCode | null;

  /** While `ingesting`: the copier renews this; once it lapses another worker may take the copy over. */
  @TimestampOrNullColumn('ingest_lease_until')
  ingestLeaseUntil: Date | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
