import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Storage } from '../infra/storage/storage';
import { FontCacheRepository, type FontCacheEntry } from './font-cache.repository';

/**
 * Holds the fonts kept in storage under FONT_CACHE_MAX_BYTES: each use is recorded, and past the
 * bound the least recently used entries go (families a job still to draw names stay), so many
 * distinct families asked for by one workspace cannot fill the disk.
 */
@Injectable()
export class FontCacheService {
  private readonly logger = new Logger(FontCacheService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: Storage,
    private readonly rows: FontCacheRepository,
  ) {}

  async used(entry: FontCacheEntry): Promise<void> {
    await this.rows.touch(entry);
  }

  /** A custom font file kept once by content hash (`fonts/custom/<sha256>.<ext>`); returns its storage key. */
  async keepCustom(bytes: Buffer, file: string, extension: string, contentType: string): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const key = `custom/${hash}.${extension}`;
    if (!(await this.storage.stat(`fonts/${key}`))) await this.storage.putFile(`fonts/${key}`, file, contentType);
    await this.rows.touch({ key, family: hash, bytes: bytes.length });
    await this.evict(key);
    return `fonts/${key}`;
  }

  /** Evicts least recently used entries (never `keep`, the one just used) until the cache fits its bound. */
  async evict(keep: string): Promise<void> {
    let total = await this.rows.totalBytes();
    if (total <= this.config.fonts.cacheMaxBytes) return;
    for (const entry of await this.rows.evictable(100)) {
      if (total <= this.config.fonts.cacheMaxBytes) break;
      if (entry.key === keep) continue;
      if (entry.key.startsWith('catalogue/')) {
        // The manifest first: a family without it is not cached, whatever files are left.
        await this.storage.delete(`fonts/${entry.key}/faces.json`);
        await this.storage.deleteFolder(`fonts/${entry.key}`);
      } else {
        await this.storage.delete(`fonts/${entry.key}`);
      }
      await this.rows.remove(entry.key);
      total -= entry.bytes;
      this.logger.log(`Font cache over ${this.config.fonts.cacheMaxBytes} bytes: evicted ${entry.key} (${entry.family}, ${entry.bytes} bytes)`);
    }
  }
}
