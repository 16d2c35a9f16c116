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
import { CreateBrandKitDto } from './dto/brand-kit.dto';
import { TransactionRepository } from '../infra/database/transaction.repository';

/** Brand kits (spec 4.6): created `extracting`, filled in by the extraction worker. */
@Injectable()
export class BrandKitsService {
  private readonly addressPolicy: AddressPolicy;

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly kits: BrandKitRepository,
    private readonly queue: QueueService,
    private readonly caps: WorkspaceCapsService,
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
