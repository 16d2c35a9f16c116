import { Inject, Injectable } from '@nestjs/common';
import { AssetRepository } from '../assets/asset.repository';
import { assetStorageKey } from '../assets/asset-storage-key';
import { AssetUrlsService } from '../assets/asset-urls.service';
import { storageExtension, uploadKindOf } from '../infra/media/media-types';
import { ApiError } from '../common/errors/api-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { UPLOAD_URL_TTL_SECONDS } from '../common/limits';
import { newId } from '../common/ids';
import { Storage } from '../infra/storage/storage';
import { Workspace } from '../workspaces/workspace.entity';
import { WorkspaceCapsService } from '../workspaces/workspace-caps.service';
import { CreateUploadDto } from './dto/create-upload.dto';
import { TransactionRepository } from '../infra/database/transaction.repository';


export interface UploadSlot {
  /** Confirm arrival with GET /v1/workspace/assets/{asset_id} (`bytes_uploaded`). */
  asset_id: string;
  upload_url: string;
  source_url: string;
  expires_at: string;
}

/**
 * Upload slots: the asset row (`reserved`) and a signed PUT URL for its storage key. The bytes go
 * straight to storage (the local /v1/files/ route, GCS or S3), never through this API's JSON routes.
 */
@Injectable()
export class UploadsService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly storage: Storage,
    private readonly urls: AssetUrlsService,
    private readonly assets: AssetRepository,
    private readonly caps: WorkspaceCapsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async reserve(workspace: Workspace, body: CreateUploadDto): Promise<UploadSlot> {
    const kind = uploadKindOf(body.content_type);
    if (!kind) {
      throw ApiError.validation([
        {
          type: 'value_error',
          loc: ['body', 'content_type'],
          msg: `content_type must be a video/…, audio/…, image/… or font type (font/ttf, font/otf, font/woff, font/woff2, application/font-…, application/vnd.ms-opentype) (got "${body.content_type}")`,
          pointer: '/content_type',
        },
      ]);
    }
    const limit = this.config.storage.uploadMaxBytes;
    if (body.size_bytes !== undefined && body.size_bytes > limit) {
      throw new ApiError('source_too_large', `size_bytes ${body.size_bytes} is above the upload limit of ${limit} bytes`, { pointer: '/size_bytes' });
    }
    const id = newId('asset');
    const key = assetStorageKey(workspace.id, id, storageExtension(body.filename ?? null, body.content_type));
    const upload = await this.storage.signedUploadUrl(key, body.content_type, UPLOAD_URL_TTL_SECONDS, { contentLength: body.size_bytes });
    await this.transactions.run(async (tx) => {
      // Open slots: reserved and still within their URL's lifetime.
      await this.caps.assertBelow(tx, workspace, 'openUploads', () =>
        this.assets.countOpenSlots(tx, workspace.id, new Date(Date.now() - UPLOAD_URL_TTL_SECONDS * 1000)),
      );
      await this.assets.insertSlot(tx, {
        id,
        workspaceId: workspace.id,
        kind,
        storageKey: key,
        contentType: body.content_type,
        name: body.filename ?? key,
        // A duration means nothing for an image or a font, pixels nothing for audio or a font.
        duration: kind === 'image' || kind === 'font' ? null : (body.duration ?? null),
        width: kind === 'audio' || kind === 'font' ? null : (body.width ?? null),
        height: kind === 'audio' || kind === 'font' ? null : (body.height ?? null),
      });
    });
    return { asset_id: id, upload_url: upload.url, source_url: this.urls.sourceUrl(id), expires_at: upload.expires_at };
  }
}
