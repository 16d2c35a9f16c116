import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ObjectNotFoundError, Storage } from '../infra/storage/storage';
import { AssetRepository } from './asset.repository';
import { AssetsService } from './assets.service';
import { probeAsset, probeFontAsset } from './probe-asset';

/**
 * Reads an uploaded asset's bytes with ffprobe and records duration, size and codecs (a probed
 * value replaces a client-supplied one); a font upload is read as a font. A readable asset is
 * announced with `asset.ready`, the signal to retry a request refused with `asset_not_ready`.
 */
@Injectable()
export class AssetProbeService {
  constructor(
    private readonly rows: AssetRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: Storage,
    private readonly assets: AssetsService,
  ) {}

  /** Probes an asset in `probing` (anything else: deleted or probed already, left alone). */
  async probe(assetId: string): Promise<void> {
    const asset = await this.rows.findById(assetId);
    if (asset?.status !== 'probing') return; // deleted, or already probed by an earlier delivery
    const workDir = path.join(this.config.dataDir, 'work');
    await mkdir(workDir, { recursive: true });
    // Bytes no upload URL bounded (an S3 upload without a declared size) are checked before they are read.
    const landed = await this.storage.stat(asset.storageKey);
    if (landed && (await this.assets.refuseTooLarge(asset, landed.size))) return;
    const file = path.join(workDir, `probe-${asset.id}-${randomBytes(6).toString('hex')}${path.extname(asset.storageKey)}`);
    try {
      try {
        await this.storage.downloadTo(asset.storageKey, file);
      } catch (error) {
        if (!(error instanceof ObjectNotFoundError)) throw error;
        // The bytes went away (a failed re-upload); the slot waits for them again.
        await this.rows.backToReserved(asset.id);
        return;
      }
      const size = (await this.storage.stat(asset.storageKey))?.size ?? null;
      if (asset.kind === 'font') {
        const font = await probeFontAsset(file);
        if (!font.readable) {
          await this.rows.markUnreadable(asset.id, size, font.problem, font.code);
          return;
        }
        const present = await this.rows.markFontPresent(asset.id, size, font.family);
        const read = present ? await this.rows.findById(asset.id) : null;
        if (read) await this.assets.announceReady(read, null);
        return;
      }
      const probe = await probeAsset(file, asset.kind);
      if (!probe.readable) {
        await this.rows.markUnreadable(asset.id, size, probe.problem);
        return;
      }
      const present = await this.rows.markPresent(asset.id, {
        sizeBytes: size,
        duration: probe.duration,
        width: probe.width,
        height: probe.height,
        videoCodec: probe.videoCodec,
        audioCodec: probe.audioCodec,
      });
      const probed = present ? await this.rows.findById(asset.id) : null;
      if (probed) await this.assets.announceReady(probed, null);
    } finally {
      await rm(file, { force: true });
    }
  }
}
