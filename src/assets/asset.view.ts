import { Asset, AssetErrorCode, AssetKind, AssetStatus } from './asset.entity';

export interface AssetView {
  id: string;
  kind: AssetKind;
  name: string;
  status: AssetStatus;
  content_type: string;
  /** Pass this as `source_url` in render and task requests. */
  source_url: string;
  /** The external URL this is the stored copy of (`ingest_external`); null for uploads. */
  ingested_from: string | null;
  size_bytes: number | null;
  duration: number | null;
  /** A font's family name, read from the file: what `font_family` names when its `fonts` entry gives no `family`. */
  font_family: string | null;
  width: number | null;
  height: number | null;
  video_codec: string | null;
  audio_codec: string | null;
  /** Set when `unreadable`: the probe could not decode the bytes, or they were above the upload limit. */
  error: { code: AssetErrorCode; message: string } | null;
  created_at: string;
  updated_at: string;
}

/** The detail view: whether the bytes are in storage, checked when it is read. */
export interface AssetDetailView extends AssetView {
  bytes_uploaded: boolean;
}

export function toAssetView(asset: Asset, sourceUrl: string): AssetView {
  return {
    id: asset.id,
    kind: asset.kind,
    name: asset.name,
    status: asset.status,
    content_type: asset.contentType,
    source_url: sourceUrl,
    ingested_from: asset.ingestedFrom,
    size_bytes: asset.sizeBytes,
    duration: asset.duration,
    font_family: asset.fontFamily,
    width: asset.width,
    height: asset.height,
    video_codec: asset.videoCodec,
    audio_codec: asset.audioCodec,
    error: asset.status === 'unreadable' ? { code: asset.errorCode ?? 'codec_unsupported', message: asset.probeError ?? 'The file could not be decoded' } : null,
    created_at: asset.createdAt.toISOString(),
    updated_at: asset.updatedAt.toISOString(),
  };
}
