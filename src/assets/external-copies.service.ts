import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { ExternalSource } from '../../composition/src/schema';
import { newId } from '../common/ids';
import { JobFailure } from '../jobs/job-failure';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { GuardedFetcher } from '../infra/http/guarded-fetcher';
import { assetKindOf, contentTypeOfExtension, extensionOfName, isWebPage, type MediaKind } from '../infra/media/media-types';
import { Storage } from '../infra/storage/storage';
import { Asset, AssetKind } from './asset.entity';
import { AssetRepository } from './asset.repository';
import { assetStorageKey } from './asset-storage-key';
import { probeAsset } from './probe-asset';
import { SourceFailure, sourceFailureOf } from './source-failure';

/** A copier renews its claim this often; a claim not renewed for LEASE_SECONDS is taken over. */
const LEASE_SECONDS = 60;
const LEASE_RENEW_MS = 20_000;
/** How often a job waiting on another job's copy of the same URL looks again. */
const WAIT_POLL_MS = 500;

/** A copy that cannot succeed: the job fails with this code; `source` says why the download failed, when it did. */
export class IngestFailure extends JobFailure<'ingest_failed' | 'codec_unsupported'> {
  constructor(code: 'ingest_failed' | 'codec_unsupported', message: string, readonly source?: SourceFailure) {
    super(code, message);
  }
}

/**
 * Stored copies of external files, one per URL per workspace (`ingest_external`). The asset row is
 * the claim: the first job to insert it copies, with a lease it keeps renewing; others needing the
 * same URL wait for it, and take over if the lease lapses (the copier died). A failed copy leaves
 * nothing behind, so a later job tries afresh.
 */
@Injectable()
export class ExternalCopiesService {
  constructor(
    private readonly assets: AssetRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly fetcher: GuardedFetcher,
    private readonly storage: Storage,
  ) {}

  /** The present copy of `source.url`, made now (`copied`) or found. Rejects with IngestFailure. */
  async ensureCopy(workspaceId: string, source: ExternalSource, signal: AbortSignal): Promise<{ asset: Asset; copied: boolean }> {
    for (;;) {
      signal.throwIfAborted();
      const claimed = await this.claim(workspaceId, source);
      if (claimed) return { asset: await this.copy(claimed, source, signal), copied: true };
      const existing = await this.assets.findCopy(workspaceId, source.url);
      if (existing?.status === 'present') return { asset: existing, copied: false };
      if (existing) {
        const takenOver = await this.takeOverLapsed(existing.id);
        if (takenOver) return { asset: await this.copy(takenOver, source, signal), copied: true };
        await sleep(WAIT_POLL_MS, undefined, { signal });
      }
      // No row: the other copy failed or the asset was deleted; claim it again.
    }
  }

  private async claim(workspaceId: string, source: ExternalSource): Promise<Asset | null> {
    const id = newId('asset');
    const extension = extensionOfName(new URL(source.url).pathname);
    return this.assets.claimCopy(
      { id, workspaceId, kind: kindOfSource(source), ingestedFrom: source.url, storageKey: assetStorageKey(workspaceId, id, extension), name: nameOfUrl(source.url) },
      LEASE_SECONDS,
    );
  }

  private takeOverLapsed(assetId: string): Promise<Asset | null> {
    return this.assets.takeOverLapsedCopy(assetId, LEASE_SECONDS);
  }

  /** Download (guarded fetcher, capped as an upload is: UPLOAD_MAX_BYTES) → probe → store → present. */
  private async copy(asset: Asset, source: ExternalSource, signal: AbortSignal): Promise<Asset> {
    const renew = setInterval(() => {
      this.assets.renewCopyLease(asset.id, LEASE_SECONDS).catch(() => undefined); // a missed renewal only risks a second copier, never a wrong result
    }, LEASE_RENEW_MS);
    const workDir = path.join(this.config.dataDir, 'work');
    const file = path.join(workDir, `ingest-${asset.id}-${randomBytes(6).toString('hex')}${path.extname(asset.storageKey)}`);
    try {
      // Inside the try: whatever fails, the lease timer stops and the claim row goes.
      await mkdir(workDir, { recursive: true });
      let download;
      try {
        download = await this.fetcher.downloadToFile(source.url, file, { signal, maxBytes: this.config.storage.uploadMaxBytes });
      } catch (error) {
        signal.throwIfAborted();
        const failure = sourceFailureOf(error, source.pointer);
        throw new IngestFailure('ingest_failed', `${failure.message}; it was not copied into storage`, failure);
      }
      if (isWebPage(download.contentType)) {
        throw new IngestFailure('ingest_failed', `The source at ${source.pointer} is a web page (${download.contentType}), not a media file; it was not copied into storage`);
      }
      const contentType = download.contentType ?? contentTypeOfExtension(path.extname(asset.storageKey)) ?? 'application/octet-stream';
      // A copy is claimed with a media kind (kindOfSource); fonts are never copied.
      const kind = assetKindOf(contentType) ?? (asset.kind as MediaKind);
      const probe = await probeAsset(file, kind);
      if (!probe.readable) {
        throw new IngestFailure(
          'codec_unsupported',
          `The file at ${source.pointer} (${download.size} bytes, ${contentType}) could not be decoded as ${kind}: ${probe.problem}`,
        );
      }
      await this.storage.putFile(asset.storageKey, file, contentType);
      const present = await this.assets.completeCopy(asset.id, {
        kind,
        contentType,
        sizeBytes: download.size,
        duration: probe.duration,
        width: probe.width,
        height: probe.height,
        videoCodec: probe.videoCodec,
        audioCodec: probe.audioCodec,
      });
      if (present) return present;
      // Another copier took the lease over and finished first: its row stands, over the same bytes.
      const current = await this.assets.findById(asset.id);
      if (current?.status === 'present') return current;
      throw new Error(`The copy ${asset.id} was removed while it was being made`);
    } catch (error) {
      await this.assets.deleteFailedCopy(asset.id);
      await this.storage.delete(asset.storageKey);
      throw error;
    } finally {
      clearInterval(renew);
      await rm(file, { force: true });
    }
  }
}

function kindOfSource(source: ExternalSource): AssetKind {
  return source.kind === 'video' || source.kind === 'audio' ? source.kind : 'image';
}

/** The URL's last path segment, decoded, as the asset's display name. */
function nameOfUrl(url: string): string {
  const { hostname, pathname } = new URL(url);
  const last = pathname.split('/').filter(Boolean).pop();
  if (!last) return hostname;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
