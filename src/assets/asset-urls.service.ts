import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

const CONTENT_PATH = /^\/v1\/workspace\/assets\/(asset_[0-9A-Z]{26})\/content$/;

/**
 * An asset's `source_url`: `{PUBLIC_BASE_URL}/v1/workspace/assets/{id}/content`, stable for the
 * asset's life. Requests name it like any URL; the service recognises its own (same origin as
 * PUBLIC_BASE_URL, this path) and reads the bytes from storage, never over HTTP, and only for the
 * workspace that owns the asset.
 */
@Injectable()
export class AssetUrlsService {
  private readonly base: URL;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.base = new URL(config.publicBaseUrl);
  }

  sourceUrl(assetId: string): string {
    return `${this.config.publicBaseUrl}/v1/workspace/assets/${assetId}/content`;
  }

  /** The asset id a URL of this service names, or null for any other URL. */
  assetIdOf(url: string): string | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (parsed.origin !== this.base.origin) return null;
    const prefix = this.base.pathname.replace(/\/+$/, '');
    if (!parsed.pathname.startsWith(`${prefix}/`)) return null;
    return CONTENT_PATH.exec(parsed.pathname.slice(prefix.length))?.[1] ?? null;
  }
}
