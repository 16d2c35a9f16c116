import { isIP } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { httpUrlProblem } from '../../composition/src/schema';
import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination/pagination';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AddressPolicy } from '../infra/http/address-policy';
import { QueueService } from '../infra/queue/queue.service';
import { Workspace } from '../workspaces/workspace.entity';
import { WorkspaceCapsService } from '../workspaces/workspace-caps.service';
import { BRAND_KIT_QUEUE } from './brand-kit-queue';
import { BrandKitRepository } from './brand-kit.repository';
import { BrandKitView, toBrandKitView } from './brand-kit.view';
import { CreateBrandKitDto, UpdateBrandKitDto } from './dto/brand-kit.dto';
import { BrandFontFile, BrandFonts } from './brand-kit.entity';
import { AssetRepository } from '../assets/asset.repository';
import { AssetUrlsService } from '../assets/asset-urls.service';
import { TransactionRepository } from '../infra/database/transaction.repository';

/** Brand kits (spec 4.6): created `extracting`, filled in by the extraction worker; name and fonts then set by their owner. */
@Injectable()
export class BrandKitsService {
  private readonly addressPolicy: AddressPolicy;

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly kits: BrandKitRepository,
    private readonly queue: QueueService,
    private readonly caps: WorkspaceCapsService,
    private readonly assets: AssetRepository,
    private readonly assetUrls: AssetUrlsService,
  ) {
    this.addressPolicy = new AddressPolicy({ allowPrivateNetwork: config.allowPrivateNetwork });
  }

  async create(workspace: Workspace, body: CreateBrandKitDto): Promise<BrandKitView> {
    this.assertFetchable(body.url);
    const kit = await this.transactions.run(async (tx) => {
      await this.caps.assertBelow(tx, workspace, 'brandKits', () => this.kits.countInWorkspace(tx, workspace.id));
      const inserted = await this.kits.insert(tx, { id: newId('bk'), workspaceId: workspace.id, name: body.name ?? null, sourceUrl: body.url });
      await this.queue.sendInTransaction(tx, BRAND_KIT_QUEUE, { brand_kit_id: inserted.id });
      return inserted;
    });
    return toBrandKitView(kit);
  }

  async list(workspace: Workspace, limit: number, cursor?: string): Promise<Page<BrandKitView>> {
    return toPage(await this.kits.list(workspace.id, limit, decodeCursor(cursor, 'bk')), limit, toBrandKitView);
  }

  async get(workspace: Workspace, id: string): Promise<BrandKitView> {
    const kit = await this.kits.findInWorkspace(workspace.id, id);
    if (!kit) throw ApiError.notFound(`Brand kit ${id}`);
    return toBrandKitView(kit);
  }

  /** Name and fonts as the owner sets them; each font file must be an uploaded font of the workspace, read as a font. */
  async update(workspace: Workspace, id: string, body: UpdateBrandKitDto): Promise<BrandKitView> {
    const kit = await this.kits.findInWorkspace(workspace.id, id);
    if (!kit) throw ApiError.notFound(`Brand kit ${id}`);
    let fonts: BrandFonts | undefined;
    if (body.fonts) {
      const files: BrandFontFile[] = [];
      for (const [index, file] of (body.fonts.files ?? []).entries()) {
        const family = await this.fontFamilyOf(workspace, file.source_url, `/fonts/files/${index}/source_url`);
        files.push({ family: file.family ?? family, source_url: file.source_url, ...(file.weight ? { weight: file.weight } : {}), ...(file.style ? { style: file.style } : {}) });
      }
      fonts = { ...(body.fonts.heading ? { heading: body.fonts.heading } : {}), ...(body.fonts.body ? { body: body.fonts.body } : {}), ...(files.length > 0 ? { files } : {}) };
    }
    // Values the owner set are certain.
    const confidence = fonts ? Object.fromEntries((['heading', 'body'] as const).filter((field) => fonts[field]).map((field) => [`fonts.${field}`, 1])) : undefined;
    if (!(await this.kits.update(workspace.id, id, { name: body.name, fonts, confidence }))) {
      throw new ApiError('conflict', `Brand kit ${id} is still being extracted; change it once brand_kit.ready has arrived`);
    }
    return toBrandKitView((await this.kits.findInWorkspace(workspace.id, id))!);
  }

  /** The family inside an uploaded font of this workspace; 422 as a render naming it would be. */
  private async fontFamilyOf(workspace: Workspace, url: string, pointer: string): Promise<string> {
    const assetId = this.assetUrls.assetIdOf(url);
    const asset = assetId ? await this.assets.findInWorkspace(workspace.id, assetId) : null;
    if (!asset) {
      // Another workspace's asset reads exactly like a missing one.
      throw new ApiError('source_not_found', `The font at ${pointer} is not an uploaded asset of this workspace (POST /v1/uploads with a font content_type gives its source_url)`, { pointer });
    }
    if (asset.kind !== 'font') throw new ApiError('invalid_source', `Asset ${asset.id} at ${pointer} is a ${asset.kind} asset, not a font file`, { pointer, asset_id: asset.id });
    if (asset.status === 'unreadable') throw new ApiError(asset.errorCode ?? 'invalid_source', `Asset ${asset.id} at ${pointer} cannot be used: ${asset.probeError}`, { pointer, asset_id: asset.id });
    if (asset.status !== 'present') {
      throw new ApiError('asset_not_ready', `Asset ${asset.id} at ${pointer} has not been read as a font yet; retry after its asset.ready event`, { pointer, asset_id: asset.id, status: asset.status });
    }
    if (!asset.fontFamily) throw ApiError.validation([{ type: 'missing', loc: ['body', ...pointer.split('/').slice(1, -1), 'family'], msg: `The font file names no family; give "family"`, pointer: pointer.replace(/source_url$/, 'family') }]);
    return asset.fontFamily;
  }

  async remove(workspace: Workspace, id: string): Promise<void> {
    if (!(await this.kits.delete(workspace.id, id))) throw ApiError.notFound(`Brand kit ${id}`);
  }

  /**
   * The URL's form, and an IP-literal host against the address rules, answered at once; a host
   * name is resolved (and checked on every connection) by the worker.
   */
  private assertFetchable(url: string): void {
    const problem = httpUrlProblem(url);
    if (problem) throw ApiError.validation([{ type: 'url_parsing', loc: ['body', 'url'], msg: problem, pointer: '/url' }]);
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    const range = isIP(host) ? this.addressPolicy.forbiddenRange(host) : null;
    if (range) {
      throw new ApiError('invalid_source', `${host} is not on the public internet (${range.kind}, ${range.range}); brand kits are extracted from public pages`, {
        errors: [{ type: 'value_error', loc: ['body', 'url'], msg: `Address in ${range.range} (${range.kind}) refused`, pointer: '/url' }],
      });
    }
  }
}
