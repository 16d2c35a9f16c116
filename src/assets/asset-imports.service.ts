import { Injectable } from '@nestjs/common';
import type { ExternalSource } from '../../composition/src/schema';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { ApiError } from '../common/errors/api-error';
import { GuardedFetcher } from '../infra/http/guarded-fetcher';
import { assetKindOf, contentTypeOfExtension, extensionOfName } from '../infra/media/media-types';
import { Workspace } from '../workspaces/workspace.entity';
import { AssetRepository } from './asset.repository';
import { AssetDetailView } from './asset.view';
import { AssetsService } from './assets.service';
import { ExternalCopiesService, IngestFailure } from './external-copies.service';
import { checkSource } from './source-checks';
import { TransactionRepository } from '../infra/database/transaction.repository';

/** The field of the import body that names the URL: every refusal points at it. */
const URL_POINTER = '/url';

/**
 * `POST /v1/workspace/assets`: an asset from a public URL, made by the same copy as
 * `ingest_external` (ExternalCopiesService: guarded fetcher, upload size cap, probe, store), so a URL is
 * stored once per workspace whichever way it arrives. The answer waits for the copy.
 */
@Injectable()
export class AssetImportsService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly rows: AssetRepository,
    private readonly fetcher: GuardedFetcher,
    private readonly copies: ExternalCopiesService,
    private readonly assets: AssetsService,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** `created` is false when the URL was already stored (or the Idempotency-Key replays). */
  async importFromUrl(workspace: Workspace, body: { url: string }, idempotencyKey: string | undefined, signal: AbortSignal): Promise<{ created: boolean; body: AssetDetailView }> {
    const scope = { workspaceId: workspace.id, scope: 'asset_imports', key: idempotencyKey, payload: { url: body.url } };
    // Read before the download, so a reused key with another URL fetches nothing.
    const earlier = await this.transactions.run((tx) => this.idempotency.peek<AssetDetailView>(tx, scope));
    if (earlier) return { created: false, body: earlier };

    const source: ExternalSource = { url: body.url, pointer: URL_POINTER, kind: kindOfUrl(body.url) };
    let copy = await this.rows.findCopy(workspace.id, body.url, true);
    let copied = false;
    if (!copy) {
      // The quick look answers an unreachable, refused or oversized URL with its own code at once.
      const failure = await checkSource(this.fetcher, source);
      if (failure) throw new ApiError(failure.code, failure.message, { pointer: failure.pointer });
      try {
        ({ asset: copy, copied } = await this.copies.ensureCopy(workspace.id, source, signal));
      } catch (error) {
        if (!(error instanceof IngestFailure)) throw error;
        const code = error.code === 'codec_unsupported' ? 'codec_unsupported' : (error.source?.code ?? 'invalid_source');
        throw new ApiError(code, error.message, { pointer: URL_POINTER });
      }
      if (copied) await this.assets.announceReady(copy, null);
    }
    const view: AssetDetailView = { ...this.assets.view(copy), bytes_uploaded: true };
    const outcome = await this.transactions.run((tx) => this.idempotency.run(tx, scope, async () => view));
    return { created: copied && !outcome.replayed, body: outcome.body };
  }
}

/** What the URL's extension suggests; the copy takes the kind of the Content-Type it is served with. */
function kindOfUrl(url: string): ExternalSource['kind'] {
  const type = contentTypeOfExtension(extensionOfName(new URL(url).pathname));
  return (type ? assetKindOf(type) : null) ?? 'video';
}
