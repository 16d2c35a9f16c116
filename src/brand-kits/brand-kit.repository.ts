import { Injectable } from '@nestjs/common';
import { insertRow } from '../infra/database/insert-row';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import { rowsAffected } from '../common/rows-affected';
import { BrandFonts, BrandKit, BrandKitError, CornerFeel, Palette } from './brand-kit.entity';

export interface ExtractedBrand {
  palette: Palette;
  fonts: BrandFonts;
  logoUrl: string | null;
  cornerFeel: CornerFeel | null;
  confidence: Record<string, number>;
}

/**
 * The `brand_kits` table. Lookups are scoped to a workspace. An extraction ends exactly once:
 * `extracting → ready` or `extracting → failed`, each one UPDATE guarded by the status, so a
 * retried worker (or a kit deleted meanwhile) cannot write twice.
 */
@Injectable()
export class BrandKitRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(tx: EntityManager, kit: Pick<BrandKit, 'id' | 'workspaceId' | 'name' | 'sourceUrl'>): Promise<BrandKit> {
    return insertRow(tx, BrandKit, { ...kit, status: 'extracting' });
  }

  countInWorkspace(tx: EntityManager, workspaceId: string): Promise<number> {
    return tx.countBy(BrandKit, { workspaceId });
  }

  findInWorkspace(workspaceId: string, id: string): Promise<BrandKit | null> {
    return this.db.manager.findOneBy(BrandKit, { id, workspaceId });
  }

  findById(id: string): Promise<BrandKit | null> {
    return this.db.manager.findOneBy(BrandKit, { id });
  }

  list(workspaceId: string, limit: number, before?: string): Promise<BrandKit[]> {
    return this.db.getRepository(BrandKit).find({
      where: { workspaceId, ...(before ? { id: LessThan(before) } : {}) },
      order: { id: 'DESC' },
      take: limit + 1,
    });
  }

  /** extracting → ready with what was found. */
  async markReady(id: string, found: ExtractedBrand): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE brand_kits SET status = 'ready', palette = $2, fonts = $3, logo_url = $4, corner_feel = $5, confidence = $6, updated_at = now()
         WHERE id = $1 AND status = 'extracting'`,
        [id, JSON.stringify(found.palette), JSON.stringify(found.fonts), found.logoUrl, found.cornerFeel, JSON.stringify(found.confidence)],
      ),
    );
  }

  /**
   * A ready or failed kit's name and fonts, as its owner sets them (an extraction still running
   * would overwrite them: false then, as for a missing kit).
   */
  async update(workspaceId: string, id: string, change: { name?: string; fonts?: BrandFonts; confidence?: Record<string, number> }): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE brand_kits SET name = COALESCE($3, name), fonts = COALESCE($4::jsonb, fonts), confidence = confidence || COALESCE($5::jsonb, '{}'::jsonb), updated_at = now()
         WHERE id = $1 AND workspace_id = $2 AND status <> 'extracting'`,
        [id, workspaceId, change.name ?? null, change.fonts ? JSON.stringify(change.fonts) : null, change.confidence ? JSON.stringify(change.confidence) : null],
      ),
    );
  }

  /** extracting → failed. */
  async markFailed(id: string, error: BrandKitError): Promise<boolean> {
    return rowsAffected(
      await this.db.query(`UPDATE brand_kits SET status = 'failed', error = $2, updated_at = now() WHERE id = $1 AND status = 'extracting'`, [
        id,
        JSON.stringify(error),
      ]),
    );
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return rowsAffected(await this.db.query(`DELETE FROM brand_kits WHERE id = $1 AND workspace_id = $2`, [id, workspaceId]));
  }
}
