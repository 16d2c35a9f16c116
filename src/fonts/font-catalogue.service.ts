import { Inject, Injectable } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { catalogueFamily } from '../../composition/src/schema';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { GuardedFetcher } from '../infra/http/guarded-fetcher';
import { Storage } from '../infra/storage/storage';
import { FontCacheService } from './font-cache.service';
import { fontFacesOfCss } from './font-css';

const run = promisify(execFile);

/** A @fontsource package tarball is a few MB; CJK families with every weight, some tens. */
const PACKAGE_MAX_BYTES = 300 * 1024 * 1024;
const PACKUMENT_MAX_BYTES = 20 * 1024 * 1024;

/** One stored face of a catalogue family: its `@font-face` descriptors and its file in storage. */
export interface StoredFace {
  weight: string;
  style: string;
  unicode_range: string;
  key: string;
}

/** What storage keeps for a fetched family (`fonts/catalogue/<id>/faces.json`). */
export interface FamilyManifest {
  family: string;
  id: string;
  version: string;
  source: string;
  /** Size of the stored faces. */
  bytes?: number;
  faces: StoredFace[];
}

/** A catalogue family could not be fetched: the render fails before drawing. */
export class FontFetchError extends Error {}

/**
 * Google Fonts families by name, from the @fontsource packages of an npm registry
 * (FONT_REGISTRY_URL): fetched once through the guarded fetcher, unpacked, and every woff2 face
 * kept in storage with a manifest, so every worker and the Player use the same bytes and a cached
 * family never touches the network again.
 */
@Injectable()
export class FontCatalogueService {
  private readonly inFlight = new Map<string, Promise<FamilyManifest>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: Storage,
    private readonly fetcher: GuardedFetcher,
    private readonly cache: FontCacheService,
  ) {}

  private manifestKey(id: string): string {
    return `fonts/catalogue/${id}/faces.json`;
  }

  /** The stored manifest, or null when the family was never fetched. */
  async cached(family: string): Promise<FamilyManifest | null> {
    const entry = catalogueFamily(family);
    if (!entry) return null;
    const key = this.manifestKey(entry.id);
    if (!(await this.storage.stat(key))) return null;
    const dir = await mkdtemp(path.join(tmpdir(), 'vrs-font-manifest-'));
    try {
      await this.storage.downloadTo(key, path.join(dir, 'faces.json'));
      return JSON.parse(await readFile(path.join(dir, 'faces.json'), 'utf8')) as FamilyManifest;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Families of `families` not in storage yet: what a render of them would fetch. */
  async toFetch(families: string[]): Promise<string[]> {
    const missing: string[] = [];
    for (const family of families) {
      const entry = catalogueFamily(family);
      if (entry && !(await this.storage.stat(this.manifestKey(entry.id)))) missing.push(family);
    }
    return missing;
  }

  /** The family's stored faces, fetching the package first when it is not cached (once at a time per family). */
  async ensure(family: string, signal?: AbortSignal): Promise<FamilyManifest> {
    const cached = await this.cached(family);
    if (cached) {
      await this.cache.used({ key: `catalogue/${cached.id}`, family: cached.family, bytes: cached.bytes ?? 0 });
      return cached;
    }
    const pending = this.inFlight.get(family) ?? this.fetchFamily(family, signal).finally(() => this.inFlight.delete(family));
    this.inFlight.set(family, pending);
    return pending;
  }

  private async fetchFamily(family: string, signal?: AbortSignal): Promise<FamilyManifest> {
    const entry = catalogueFamily(family);
    if (!entry) throw new FontFetchError(`${family} is not a Google Fonts family`);
    const name = `@fontsource/${entry.id}`;
    const registry = this.config.fonts.registryUrl;
    const work = await mkdtemp(path.join(tmpdir(), 'vrs-font-package-'));
    try {
      let tarball: string;
      let version: string;
      try {
        const answer = await this.fetcher.request(`${registry}/${name.replace('/', '%2f')}`, {
          headers: { accept: 'application/vnd.npm.install-v1+json, application/json' },
          maxBytes: PACKUMENT_MAX_BYTES,
          connectTimeoutMs: 10_000,
          readTimeoutMs: 30_000,
          signal,
        });
        const chunks: Buffer[] = [];
        for await (const chunk of answer.body) chunks.push(chunk as Buffer);
        if (answer.status !== 200) throw new Error(`the registry answered ${answer.status}`);
        const packument = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { 'dist-tags'?: { latest?: string }; versions?: Record<string, { dist?: { tarball?: string } }> };
        version = packument['dist-tags']?.latest ?? '';
        tarball = packument.versions?.[version]?.dist?.tarball ?? '';
        if (!tarball) throw new Error('the registry lists no tarball for its latest version');
        await this.fetcher.downloadToFile(tarball, path.join(work, 'package.tgz'), { maxBytes: PACKAGE_MAX_BYTES, connectTimeoutMs: 10_000, readTimeoutMs: 60_000, signal });
      } catch (error) {
        throw new FontFetchError(`the font family ${family} could not be fetched from ${registry} (${name}): ${(error as Error).message}`);
      }
      await run('tar', ['-xzf', path.join(work, 'package.tgz'), '-C', work]);
      const root = path.join(work, 'package');
      const sheets = (await readdir(root)).filter((file) => /^\d{3}(-italic)?\.css$/.test(file));
      const faces: StoredFace[] = [];
      let bytes = 0;
      for (const sheet of sheets.sort()) {
        for (const face of fontFacesOfCss(await readFile(path.join(root, sheet), 'utf8'))) {
          const key = `fonts/catalogue/${entry.id}/${version}/${face.file}`;
          bytes += (await this.storage.putFile(key, path.join(root, 'files', face.file), 'font/woff2')).size;
          faces.push({ weight: face.weight, style: face.style, unicode_range: face.unicodeRange, key });
        }
      }
      if (faces.length === 0) throw new FontFetchError(`the package ${name}@${version} has no woff2 faces`);
      const manifest: FamilyManifest = { family: entry.family, id: entry.id, version, source: `${registry}/${name}`, bytes, faces };
      const manifestFile = path.join(work, 'faces.json');
      await writeFile(manifestFile, JSON.stringify(manifest));
      // The manifest goes last: a family whose files are not all stored is not cached.
      await this.storage.putFile(this.manifestKey(entry.id), manifestFile, 'application/json');
      await this.cache.used({ key: `catalogue/${entry.id}`, family: entry.family, bytes });
      await this.cache.evict(`catalogue/${entry.id}`);
      return manifest;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}
