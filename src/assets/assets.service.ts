import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { decodeCursor, Page, toPage } from '../common/pagination/pagination';
import { EventPublisher } from '../jobs/event-publisher';
import { QueueService } from '../infra/queue/queue.service';
import { Storage, StoredObject } from '../infra/storage/storage';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { UploadEventsService } from '../infra/storage/upload-events.service';
import { Workspace } from '../workspaces/workspace.entity';
import { Asset, AssetKind, AssetStatus } from './asset.entity';
import { AssetRepository } from './asset.repository';
import { isAssetStorageKey } from './asset-storage-key';
import { AssetUrlsService } from './asset-urls.service';
import { AssetDetailView, AssetView, toAssetView } from './asset.view';
import { ASSET_PROBE_QUEUE } from './intake-queues';
import { TransactionRepository } from '../infra/database/transaction.repository';

/** `GET …/content` hands out a signed URL valid this long. */
const CONTENT_URL_TTL_SECONDS = 15 * 60;

/** States whose bytes may be replaced by a new upload to the same slot, which is then probed again. */
const REUPLOADABLE: AssetStatus[] = ['reserved', 'present', 'unreadable'];

/**
 * The workspace's assets: listing, detail, deletion, and the step from "bytes stored" to
 * "probing". Local uploads announce themselves (UploadEventsService); GCS uploads go straight to Google,
 * so a reserved asset is also checked against storage whenever it is read or named in a request,
 * and probed once its bytes show up there.
 */
@Injectable()
export class AssetsService implements OnModuleInit {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly storage: Storage,
    private readonly queue: QueueService,
    private readonly urls: AssetUrlsService,
    private readonly uploadEvents: UploadEventsService,
    private readonly events: EventPublisher,
    private readonly assets: AssetRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.uploadEvents.onUploaded((key) => this.uploadLanded(key));
  }

  view(asset: Asset): AssetView {
    return toAssetView(asset, this.urls.sourceUrl(asset.id));
  }

  /** `asset.ready` with the asset, to the job's own webhook_url when given, else the workspace's webhooks. */
  async announceReady(asset: Asset, webhookUrl: string | null): Promise<void> {
    await this.events.assetReady(asset.workspaceId, { ...this.view(asset), bytes_uploaded: true }, webhookUrl);
  }

  /**
   * Assets usable now or once their bytes land, newest first: images as soon as reserved, video
   * and audio once a duration is known (client-supplied or probed). Copies still in progress and
   * unreadable files are left out.
   */
  async list(workspace: Workspace, query: { kind?: AssetKind; limit: number; cursor?: string }): Promise<Page<AssetView>> {
    const before = decodeCursor(query.cursor, 'asset');
    const rows = await this.assets.list(workspace.id, { kind: query.kind, limit: query.limit, before });
    return toPage(rows, query.limit, (asset) => this.view(asset));
  }

  /** Any asset of the workspace, listed or not, with `bytes_uploaded` read from storage. */
  async detail(workspace: Workspace, id: string): Promise<AssetDetailView> {
    let asset = await this.find(workspace.id, id);
    const stored = await this.storage.stat(asset.storageKey);
    if (stored && asset.status === 'reserved' && (await this.bytesLanded(asset, stored))) {
      asset = await this.find(workspace.id, id);
      if (asset.status === 'unreadable') return { ...this.view(asset), bytes_uploaded: false };
    }
    return { ...this.view(asset), bytes_uploaded: stored !== null };
  }

  /** Removes the row, then the stored file. Requests that name its URL afterwards get source_not_found. */
  async remove(workspace: Workspace, id: string): Promise<void> {
    const asset = await this.find(workspace.id, id);
    await this.assets.delete(asset.id);
    await this.storage.delete(asset.storageKey);
  }

  /** Where the bytes of the asset behind a `source_url` can be read: a short-lived signed URL. */
  async contentUrl(workspace: Workspace, id: string): Promise<string> {
    const asset = await this.find(workspace.id, id);
    if (!(await this.storage.stat(asset.storageKey))) throw new ApiError('not_found', `Asset ${id} has no stored bytes yet`);
    return (await this.storage.signedReadUrl(asset.storageKey, CONTENT_URL_TTL_SECONDS, { contentType: asset.contentType })).url;
  }

  /**
   * For a request naming a reserved asset: when storage now holds its bytes (a GCS upload, which
   * announces nothing), the probe starts. Returns the asset as it is afterwards.
   */
  async refreshReserved(asset: Asset): Promise<Asset> {
    const stored = asset.status === 'reserved' ? await this.storage.stat(asset.storageKey) : null;
    if (!stored) return asset;
    await this.bytesLanded(asset, stored);
    return (await this.assets.findById(asset.id)) ?? asset;
  }

  private async find(workspaceId: string, id: string): Promise<Asset> {
    const asset = await this.assets.findInWorkspace(workspaceId, id);
    if (!asset) throw ApiError.notFound('Asset');
    return asset;
  }

  /**
   * A local upload completed. An upload to the slot of a deleted asset (its URL outlives it by up
   * to an hour) is removed again rather than left in storage with no row.
   */
  private async uploadLanded(key: string): Promise<void> {
    if (!isAssetStorageKey(key)) return;
    const asset = await this.assets.findByStorageKey(key);
    if (asset) await this.startProbe(asset.id, REUPLOADABLE);
    else await this.storage.delete(key);
  }

  /**
   * A reserved asset's bytes showed up in storage (an S3 or GCS upload, which announces nothing).
   * An upload that declared no size was not bounded by its URL's signature: above the upload limit
   * its bytes are deleted and the asset is `unreadable` with `source_too_large`; else it is probed.
   * False when another request moved the asset first.
   */
  private async bytesLanded(asset: Asset, stored: StoredObject): Promise<boolean> {
    if (await this.refuseTooLarge(asset, stored.size)) return true;
    return this.startProbe(asset.id, ['reserved']);
  }

  /** True when `size` is above the upload limit: the object is deleted and the asset marked. */
  async refuseTooLarge(asset: Asset, size: number): Promise<boolean> {
    const limit = this.config.storage.uploadMaxBytes;
    if (size <= limit) return false;
    const problem = `The uploaded file has ${size} bytes, more than the upload limit of ${limit} bytes; it was deleted`;
    if (await this.assets.markTooLarge(asset.id, size, problem)) await this.storage.delete(asset.storageKey);
    return true;
  }

  /** Moves the asset to `probing` and enqueues the probe, together; false when it was in none of `from`. */
  private async startProbe(assetId: string, from: AssetStatus[]): Promise<boolean> {
    return this.transactions.run(async (tx) => {
      if (!(await this.assets.startProbe(tx, assetId, from))) return false;
      await this.queue.sendInTransaction(tx, ASSET_PROBE_QUEUE, { asset_id: assetId });
      return true;
    });
  }
}
