import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import stableStringify from 'fast-json-stable-stringify';
import type { EntityManager } from 'typeorm';
import { externalSources, RenderRequest } from '../../composition/src/schema';
import { AssetRepository } from '../assets/asset.repository';
import { AssetUrlsService } from '../assets/asset-urls.service';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Storage } from '../infra/storage/storage';
import { Job } from '../jobs/job.entity';
import { JobRepository } from '../jobs/job.repository';

/** Fields that change where the result goes or how it is named, never what is drawn. */
const NOT_DRAWN = ['metadata', 'webhook_url', 'reuse', 'output_filename', 'ingest_external'] as const;

/**
 * Reuse of identical renders (docs/decisions.md, Batches and reuse). Two renders are identical when
 * their canonical resolved requests are: variables filled, fields that do not change the picture
 * left out, and every source named by the stored bytes it reads (an asset's id and size: stored
 * asset bytes never change). A source the service does not hold (an external URL not ingested)
 * makes the request unique, so it is never reused.
 */
@Injectable()
export class RenderReuseService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly assets: AssetRepository,
    private readonly urls: AssetUrlsService,
    private readonly storage: Storage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The request's hash, or null when it may never be reused (opted out, or a source not held). */
  async requestHash(workspaceId: string, request: RenderRequest): Promise<string | null> {
    if (!this.config.render.reuse || request.reuse === false) return null;
    const contents: Record<string, string> = {};
    for (const source of externalSources(request)) {
      const content = await this.contentOf(workspaceId, source.url, request.ingest_external === true);
      if (!content) return null;
      contents[source.url] = content;
    }
    const drawn: Record<string, unknown> = { ...request };
    for (const field of NOT_DRAWN) delete drawn[field];
    return createHash('sha256').update(stableStringify({ request: drawn, contents })).digest('hex');
  }

  /** The newest completed render of the workspace with this hash whose output is still stored. */
  async findEarlier(tx: EntityManager, workspaceId: string, hash: string): Promise<Job | null> {
    const candidates = await this.jobs.findReusable(tx, workspaceId, hash, 3);
    for (const job of candidates) {
      // Retention or a deletion may have removed the object while the row stayed.
      if (await this.storage.stat(job.outputKey!).catch(() => null)) return job;
    }
    return null;
  }

  /** What a source reads, as stored content; null when the service does not hold it. */
  private async contentOf(workspaceId: string, url: string, ingested: boolean): Promise<string | null> {
    const assetId = this.urls.assetIdOf(url);
    const asset = assetId
      ? await this.assets.findInWorkspace(workspaceId, assetId)
      : ingested
        ? ((await this.assets.findPresentCopies(workspaceId, [url]))[0] ?? null)
        : null;
    if (!asset || asset.status !== 'present' || asset.sizeBytes === null) return null;
    return `${asset.id}:${asset.sizeBytes}`;
  }
}
