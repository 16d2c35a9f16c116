import { checkFont } from './font-check';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ExternalSource, externalSources, MediaInfo, RenderRequest } from '../../composition/src/schema';
import { ApiError, ValidationErrorItem } from '../common/errors/api-error';
import { GuardedFetcher } from '../infra/http/guarded-fetcher';
import { QueueService } from '../infra/queue/queue.service';
import { ObjectNotFoundError, Storage } from '../infra/storage/storage';
import { Job } from '../jobs/job.entity';
import { Workspace } from '../workspaces/workspace.entity';
import { Asset } from './asset.entity';
import { AssetRepository } from './asset.repository';
import { AssetUrlsService } from './asset-urls.service';
import { AssetsService } from './assets.service';
import { INGEST_QUEUE } from './intake-queues';
import { checkLut } from './lut-check';
import { firstFailingSource } from './source-checks';
import { SourceFailure, sourceFailureOf } from './source-failure';

export interface RenderIntake {
  /** The request to store: `ingest_external` resolved (the workspace default when omitted). */
  request: RenderRequest;
  /** Whether external files must be copied first: the job starts `ingesting`. */
  ingest: boolean;
  /** What is already known of the sources (stored assets), for the duration estimate and violations. */
  media: Record<string, MediaInfo>;
}

/**
 * Where renders meet media: the submit-time checks of every source, the decision to ingest, and
 * for the worker, each input as a local file, from storage when the service holds it.
 */
@Injectable()
export class MediaIntakeService {
  constructor(
    private readonly rows: AssetRepository,
    private readonly fetcher: GuardedFetcher,
    private readonly storage: Storage,
    private readonly queue: QueueService,
    private readonly urls: AssetUrlsService,
    private readonly assets: AssetsService,
  ) {}

  /**
   * Submit: assets named by `source_url` must be this workspace's and ready (else 422
   * source_not_found / asset_not_ready / codec_unsupported); external URLs get a quick reachability
   * check (422 invalid_source / source_not_found / source_too_large), except those already copied.
   */
  async prepareRender(workspace: Workspace, request: RenderRequest): Promise<RenderIntake> {
    const ingest = request.ingest_external ?? workspace.ingestExternal;
    if (!ingest) this.assertTrimmed(request);
    const sources = externalSources(request);
    const media: Record<string, MediaInfo> = {};
    for (const source of sources.filter((s) => this.isHosted(s.url))) {
      const asset = await this.readyAsset(workspace.id, source);
      if (asset.kind !== 'font') media[source.url] = mediaInfoOf(asset);
    }

    let toFetch = sources.filter((s) => !this.isHosted(s.url));
    if (ingest && toFetch.length > 0) {
      const copies = await this.presentCopies(workspace.id, toFetch.map((s) => s.url));
      Object.assign(media, copies);
      toFetch = toFetch.filter((s) => !(s.url in copies));
    }
    // LUTs and fonts are read and parsed whole; they are not media assets, so they are never copied by ingest.
    const luts = toFetch.filter((s) => s.kind === 'lut' || s.kind === 'font');
    toFetch = toFetch.filter((s) => s.kind !== 'lut' && s.kind !== 'font');
    const failure = (await firstFailingSource(this.fetcher, toFetch)) ?? (await firstFailingLut(this.fetcher, luts));
    if (failure) throw new ApiError(failure.code, failure.message, { pointer: failure.pointer });
    return { request: { ...(await this.withUploadedFontFamilies(workspace.id, request)), ingest_external: ingest }, ingest: ingest && toFetch.length > 0, media };
  }

  /**
   * The request with each `fonts` entry that names an uploaded font without `family` given the
   * family read from the file when it landed, so the dry run, the worker and the font cache all
   * see the family it registers (never a catalogue family of the same name). A database read only.
   */
  async withUploadedFontFamilies(workspaceId: string, request: RenderRequest): Promise<RenderRequest> {
    if (!request.fonts?.some((font) => !font.family && this.isHosted(font.source_url))) return request;
    const fonts = [];
    for (const font of request.fonts) {
      const assetId = font.family ? null : this.urls.assetIdOf(font.source_url);
      const asset = assetId ? await this.rows.findInWorkspace(workspaceId, assetId) : null;
      fonts.push(asset?.kind === 'font' && asset.status === 'present' && asset.fontFamily ? { ...font, family: asset.fontFamily } : font);
    }
    return { ...request, fonts };
  }

  /**
   * The checks of `prepareRender` that read nothing (a dry run without `check_sources`): the
   * ingest decision and the `out_point` rule. No media are known, so none are ingested.
   */
  prepareWithoutSources(workspace: Workspace, request: RenderRequest): RenderIntake {
    const ingest = request.ingest_external ?? workspace.ingestExternal;
    if (!ingest) this.assertTrimmed(request);
    return { request: { ...request, ingest_external: ingest }, ingest: false, media: {} };
  }

  /**
   * Submit check of a task's one source, as renders check theirs: an asset must be this
   * workspace's and ready; an external URL must answer. Throws the same 422s. Returns what is
   * known of a stored asset (its duration), null for an external URL.
   */
  async prepareSource(workspace: Workspace, source: ExternalSource): Promise<MediaInfo | null> {
    if (this.isHosted(source.url)) {
      const asset = await this.readyAsset(workspace.id, source);
      return asset.kind === 'font' ? null : mediaInfoOf(asset);
    }
    const failure = await firstFailingSource(this.fetcher, [source]);
    if (failure) throw new ApiError(failure.code, failure.message, { pointer: failure.pointer });
    return null;
  }

  /** What the stored copies of these external URLs tell (`ingest_external`), by URL; a URL not copied yet is absent. */
  async presentCopies(workspaceId: string, urls: string[]): Promise<Record<string, MediaInfo>> {
    if (urls.length === 0) return {};
    const copies = await this.rows.findPresentCopies(workspaceId, urls);
    return Object.fromEntries(copies.map((copy) => [copy.ingestedFrom!, mediaInfoOf(copy)]));
  }

  /** Whether the URL names one of the service's own assets (checked in the database, never fetched). */
  isHosted(url: string): boolean {
    return this.urls.assetIdOf(url) !== null;
  }

  /** Enqueues the copy inside the submit transaction (the job row and its queue entry commit together). */
  async enqueueIngest(tx: EntityManager, jobId: string): Promise<void> {
    await this.queue.sendInTransaction(tx, INGEST_QUEUE, { job_id: jobId });
  }

  /** The sources of a stored request that are not the service's own assets (LUTs aside: never copied). */
  externalOnly(sources: ExternalSource[]): ExternalSource[] {
    return sources.filter((s) => !this.isHosted(s.url) && s.kind !== 'lut' && s.kind !== 'font');
  }

  /**
   * Worker: the bytes of one source into `file`. Assets and (for ingesting jobs) stored copies come
   * from storage; anything else through the guarded fetcher. Rejects with SourceFailure. For a
   * stored asset already probed, `info` carries what the probe found, so it is not probed again.
   */
  async fetchInput(job: Job, source: ExternalSource, file: string, signal: AbortSignal): Promise<{ contentType: string | null; info?: MediaInfo }> {
    const assetId = this.urls.assetIdOf(source.url);
    if (assetId) {
      const asset = await this.rows.findInWorkspace(job.workspaceId, assetId);
      if (asset && (await this.readStored(asset, file))) return { contentType: asset.contentType, info: probedInfo(asset) };
      throw new SourceFailure('source_not_found', `The asset at ${source.pointer} (${assetId}) no longer exists or has no bytes`, source.pointer);
    }
    if (job.request.ingest_external === true) {
      const copy = await this.rows.findCopy(job.workspaceId, source.url, true);
      // A copy deleted since ingest is fetched again rather than failing the render.
      if (copy && (await this.readStored(copy, file))) return { contentType: copy.contentType, info: probedInfo(copy) };
    }
    try {
      return await this.fetcher.downloadToFile(source.url, file, { signal });
    } catch (error) {
      signal.throwIfAborted();
      throw sourceFailureOf(error, source.pointer);
    }
  }

  private async readStored(asset: Asset, file: string): Promise<boolean> {
    try {
      await this.storage.downloadTo(asset.storageKey, file);
      return true;
    } catch (error) {
      if (error instanceof ObjectNotFoundError) return false;
      throw error;
    }
  }

  /**
   * An asset named in a request: usable once its bytes are stored and either probed or, for video
   * and audio, given a client-supplied duration (usable at once, without waiting for a probe). A
   * font asset serves only `fonts`, and `fonts` only a font asset.
   */
  private async readyAsset(workspaceId: string, source: ExternalSource): Promise<Asset> {
    const assetId = this.urls.assetIdOf(source.url)!;
    const found = await this.rows.findInWorkspace(workspaceId, assetId);
    if (!found) {
      // Another workspace's asset reads exactly like a missing one.
      throw new ApiError('source_not_found', `The source at ${source.pointer} names asset ${assetId}, which this workspace does not have`, {
        pointer: source.pointer,
      });
    }
    if ((found.kind === 'font') !== (source.kind === 'font')) {
      const wanted = source.kind === 'font' ? 'a font file (upload it with a font content_type)' : `a ${source.kind === 'audio' ? 'audio' : 'picture or video'} file`;
      throw new ApiError('invalid_source', `The source at ${source.pointer} names asset ${found.id}, a ${found.kind} asset; it must be ${wanted}`, {
        pointer: source.pointer,
        asset_id: found.id,
      });
    }
    const asset = await this.assets.refreshReserved(found);
    const notReady = (why: string) =>
      new ApiError(
        'asset_not_ready',
        `Asset ${asset.id} at ${source.pointer} ${why}; retry after its asset.ready event (GET /v1/workspace/assets/${asset.id} shows its status)`,
        { pointer: source.pointer, asset_id: asset.id, status: asset.status },
      );
    switch (asset.status) {
      case 'present':
        return asset;
      case 'probing':
        if ((asset.kind === 'video' || asset.kind === 'audio') && asset.duration !== null) return asset;
        throw notReady(asset.kind === 'font' ? 'is still being read' : 'is still being probed');
      case 'reserved':
        throw notReady('has no uploaded bytes yet (PUT them to its upload_url)');
      case 'ingesting':
        throw notReady('is still being copied into storage');
      case 'unreadable':
        throw new ApiError(asset.errorCode ?? 'codec_unsupported', `Asset ${asset.id} at ${source.pointer} ${asset.errorCode === 'source_too_large' ? 'was refused' : asset.kind === 'font' ? 'cannot be used' : 'cannot be decoded'}: ${asset.probeError}`, {
          pointer: source.pointer,
          asset_id: asset.id,
        });
    }
  }

  /**
   * Without ingest, external video and audio go to the renderer unread, so their length
   * must be given (`out_point`). The service's own assets have a known length.
   */
  private assertTrimmed(request: RenderRequest): void {
    const missing: ValidationErrorItem[] = [];
    (request.elements ?? []).forEach((element, index) => {
      if ((element.type === 'video' || element.type === 'audio') && element.out_point === undefined && !this.isHosted(element.source_url)) {
        missing.push({
          type: 'missing',
          loc: ['body', 'elements', index, element.type, 'out_point'],
          msg: `out_point is required on ${element.type} from an external URL when ingest_external is false; set out_point, or ingest_external: true to let the service read the file first`,
          pointer: `/elements/${index}/out_point`,
        });
      }
    });
    if (missing.length > 0) throw ApiError.validation(missing);
  }
}

async function firstFailingLut(fetcher: GuardedFetcher, luts: ExternalSource[]) {
  for (const lut of luts) {
    const failure = lut.kind === 'font' ? await checkFont(fetcher, lut) : await checkLut(fetcher, lut);
    if (failure) return failure;
  }
  return null;
}

/** What resolveRequest and the violations can use; stream flags only once probed. */
function probedInfo(asset: Asset): MediaInfo | undefined {
  return asset.status === 'present' ? mediaInfoOf(asset) : undefined;
}

function mediaInfoOf(asset: Asset): MediaInfo {
  const info: MediaInfo = {};
  if (asset.duration !== null) info.duration = asset.duration;
  if (asset.width !== null) info.width = asset.width;
  if (asset.height !== null) info.height = asset.height;
  if (asset.status === 'present') {
    info.has_video = asset.videoCodec !== null;
    info.has_audio = asset.audioCodec !== null;
  }
  return info;
}
