import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, MoreThan } from 'typeorm';
import { Asset } from '../assets/asset.entity';
import { assetStorageKey } from '../assets/asset-storage-key';
import { AssetUrls } from '../assets/asset-urls';
import { assetKindOf, storageExtension } from '../assets/media-types';
import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { Storage } from '../infra/storage/storage';
import { Workspace } from '../workspaces/workspace.entity';
import { assertBelowCap } from '../workspaces/workspace-caps';
import { CreateUploadDto } from './dto/create-upload.dto';

/** Spec 8: an upload URL lives one hour. */
export const UPLOAD_URL_TTL_SECONDS = 3600;

export interface UploadSlot {
  /** Confirm arrival with GET /v1/workspace/assets/{asset_id} (`bytes_uploaded`). */
  asset_id: string;
  upload_url: string;
  source_url: string;
  expires_at: string;
}

/**
 * Upload slots: the asset row (`reserved`) and a signed PUT URL for its storage key. The bytes go
 * straight to storage (the local /v1/files/ route or GCS), never through this API's JSON routes.
 */
@Injectable()
export class UploadsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: Storage,
    private readonly urls: AssetUrls,
  ) {}

  async reserve(workspace: Workspace, body: CreateUploadDto): Promise<UploadSlot> {
    const kind = assetKindOf(body.content_type);
    if (!kind) {
      throw ApiError.validation([
        {
          type: 'value_error',
          loc: ['body', 'content_type'],
          msg: `content_type must be a video/…, audio/… or image/… type (got "${body.content_type}")`,
          pointer: '/content_type',
        },
      ]);
    }
    const id = newId('asset');
    const key = assetStorageKey(workspace.id, id, storageExtension(body.filename ?? null, body.content_type));
    const upload = await this.storage.signedUploadUrl(key, body.content_type, UPLOAD_URL_TTL_SECONDS);
    await this.db.transaction(async (tx) => {
      // Open slots: reserved and still within their URL's lifetime.
      await assertBelowCap(tx, workspace, 'openUploads', () =>
        tx.countBy(Asset, { workspaceId: workspace.id, status: 'reserved', createdAt: MoreThan(new Date(Date.now() - UPLOAD_URL_TTL_SECONDS * 1000)) }),
      );
      await tx.insert(Asset, {
        id,
        workspaceId: workspace.id,
        kind,
        status: 'reserved',
        ingestedFrom: null,
        storageKey: key,
        contentType: body.content_type,
        name: body.filename ?? key,
        // Spec 4.3: a duration means nothing for an image, pixels nothing for audio.
        duration: kind === 'image' ? null : (body.duration ?? null),
        width: kind === 'audio' ? null : (body.width ?? null),
        height: kind === 'audio' ? null : (body.height ?? null),
      });
    });
    return { asset_id: id, upload_url: upload.url, source_url: this.urls.sourceUrl(id), expires_at: upload.expires_at };
  }
}
