import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { rowsAffected } from '../common/rows-affected';
import { Asset, AssetErrorCode, AssetKind, AssetStatus } from './asset.entity';

/** What a probe or a finished copy learned of the file. */
export interface ProbedFacts {
  sizeBytes: number | null;
  duration: number | null;
  width: number | null;
  height: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
}

/**
 * The `assets` table: every read and status change of an asset goes through here, each
 * transition one statement guarded by the statuses it may start from.
 *
 *   upload slot:   reserved ─startProbe─▶ probing ─markPresent─▶ present
 *                     ▲                     │  └──markUnreadable──▶ unreadable ─startProbe (re-upload)
 *                     └───backToReserved────┘
 *   external copy: (claimCopy) ingesting ─completeCopy─▶ present; a lapsed lease is taken over
 */
@Injectable()
export class AssetRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  findById(id: string, manager: EntityManager = this.db.manager): Promise<Asset | null> {
    return manager.findOneBy(Asset, { id });
  }

  /** An asset of one workspace (another workspace's id finds nothing). */
  findInWorkspace(workspaceId: string, id: string): Promise<Asset | null> {
    return this.db.getRepository(Asset).findOneBy({ id, workspaceId });
  }

  findByStorageKey(key: string): Promise<Asset | null> {
    return this.db.getRepository(Asset).findOneBy({ storageKey: key });
  }

  /** The workspace's copy of an external URL, in whatever state (`present` only when asked). */
  findCopy(workspaceId: string, url: string, onlyPresent = false): Promise<Asset | null> {
    return this.db.getRepository(Asset).findOneBy({ workspaceId, ingestedFrom: url, ...(onlyPresent ? { status: 'present' as const } : {}) });
  }

  findPresentCopies(workspaceId: string, urls: string[]): Promise<Asset[]> {
    return this.db.getRepository(Asset).findBy({ workspaceId, ingestedFrom: In(urls), status: 'present' });
  }

  /** Listed assets, newest first, `limit + 1` rows: usable now or once their bytes land. */
  list(workspaceId: string, query: { kind?: AssetKind; limit: number; before?: string }): Promise<Asset[]> {
    const builder = this.db
      .getRepository(Asset)
      .createQueryBuilder('a')
      .where('a.workspaceId = :ws', { ws: workspaceId })
      .andWhere(`a.status IN ('reserved', 'probing', 'present')`)
      // Fonts once read as fonts: nothing else tells them usable.
      .andWhere(`(a.kind = 'image' OR (a.kind = 'font' AND a.status = 'present') OR (a.kind IN ('video', 'audio') AND a.duration IS NOT NULL))`)
      .orderBy('a.id', 'DESC')
      .take(query.limit + 1);
    if (query.kind) builder.andWhere('a.kind = :kind', { kind: query.kind });
    if (query.before) builder.andWhere('a.id < :before', { before: query.before });
    return builder.getMany();
  }

  /** Open upload slots of a workspace: reserved since `since` (their URL still lives). */
  countOpenSlots(tx: EntityManager, workspaceId: string, since: Date): Promise<number> {
    return tx
      .getRepository(Asset)
      .createQueryBuilder('a')
      .where(`a.workspaceId = :ws AND a.status = 'reserved' AND a.createdAt > :since`, { ws: workspaceId, since })
      .getCount();
  }

  async insertSlot(tx: EntityManager, slot: Pick<Asset, 'id' | 'workspaceId' | 'kind' | 'storageKey' | 'contentType' | 'name' | 'duration' | 'width' | 'height'>): Promise<void> {
    await tx.insert(Asset, { ...slot, status: 'reserved', ingestedFrom: null });
  }

  async delete(id: string): Promise<void> {
    await this.db.getRepository(Asset).delete({ id });
  }

  /** An uploaded asset's bytes are there: → probing (with the probe enqueued in `tx`). */
  async startProbe(tx: EntityManager, id: string, from: AssetStatus[]): Promise<boolean> {
    return rowsAffected(
      await tx.query(
        `UPDATE assets SET status = 'probing', probe_error = NULL, error_code = NULL, updated_at = now()
         WHERE id = $1 AND status = ANY($2) AND ingested_from IS NULL`,
        [id, from],
      ),
    );
  }

  /** probing → reserved: the bytes could not be read now; the next request naming it probes again. */
  async backToReserved(id: string): Promise<boolean> {
    return rowsAffected(await this.db.query(`UPDATE assets SET status = 'reserved', updated_at = now() WHERE id = $1 AND status = 'probing'`, [id]));
  }

  /** probing → present, with what the probe found (a client-supplied size stays where the probe found none). */
  async markPresent(id: string, facts: ProbedFacts): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE assets SET status = 'present', size_bytes = $2, duration = COALESCE($3, duration), width = COALESCE($4, width),
           height = COALESCE($5, height), video_codec = $6, audio_codec = $7, updated_at = now()
         WHERE id = $1 AND status = 'probing'`,
        [id, facts.sizeBytes, facts.duration, facts.width, facts.height, facts.videoCodec, facts.audioCodec],
      ),
    );
  }

  /** probing → present for a font file, with the family named inside it. */
  async markFontPresent(id: string, sizeBytes: number | null, family: string | null): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE assets SET status = 'present', size_bytes = $2, font_family = $3, updated_at = now() WHERE id = $1 AND status = 'probing'`,
        [id, sizeBytes, family],
      ),
    );
  }

  /**
   * probing → unreadable: the file is not media the service can decode (code null, read as
   * `codec_unsupported`), or a font upload is not a font (`invalid_source`).
   */
  async markUnreadable(id: string, sizeBytes: number | null, problem: string, code: AssetErrorCode | null = null): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE assets SET status = 'unreadable', size_bytes = $2, probe_error = $3, error_code = $4, font_family = NULL, updated_at = now()
         WHERE id = $1 AND status = 'probing'`,
        [id, sizeBytes, problem, code],
      ),
    );
  }

  /** reserved or probing → unreadable with `source_too_large`: the bytes that landed exceed the upload limit. */
  async markTooLarge(id: string, sizeBytes: number, problem: string): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE assets SET status = 'unreadable', size_bytes = $2, probe_error = $3, error_code = 'source_too_large', updated_at = now()
         WHERE id = $1 AND status IN ('reserved', 'probing')`,
        [id, sizeBytes, problem],
      ),
    );
  }

  /** A new copy of an external URL, leased to the caller; null when the workspace already has one. */
  async claimCopy(copy: Pick<Asset, 'id' | 'workspaceId' | 'kind' | 'ingestedFrom' | 'storageKey' | 'name'>, leaseSeconds: number): Promise<Asset | null> {
    const [row] = await this.db.query(
      `INSERT INTO assets (id, workspace_id, kind, status, ingested_from, storage_key, content_type, name, ingest_lease_until)
       VALUES ($1, $2, $3, 'ingesting', $4, $5, 'application/octet-stream', $6, now() + make_interval(secs => $7))
       ON CONFLICT (workspace_id, ingested_from) DO NOTHING RETURNING id`,
      [copy.id, copy.workspaceId, copy.kind, copy.ingestedFrom, copy.storageKey, copy.name, leaseSeconds],
    );
    return row ? this.findById(copy.id) : null;
  }

  /** A copy whose copier's lease lapsed, taken over by the caller (a new lease); null when it is not lapsed. */
  async takeOverLapsedCopy(id: string, leaseSeconds: number): Promise<Asset | null> {
    const taken = rowsAffected(
      await this.db.query(
        `UPDATE assets SET status = 'ingesting', ingest_lease_until = now() + make_interval(secs => $2), updated_at = now()
         WHERE id = $1 AND status <> 'present' AND (ingest_lease_until IS NULL OR ingest_lease_until < now())`,
        [id, leaseSeconds],
      ),
    );
    return taken ? this.findById(id) : null;
  }

  async renewCopyLease(id: string, leaseSeconds: number): Promise<void> {
    await this.db.query(`UPDATE assets SET ingest_lease_until = now() + make_interval(secs => $2) WHERE id = $1 AND status = 'ingesting'`, [id, leaseSeconds]);
  }

  /** ingesting → present, with the stored file's facts. */
  async completeCopy(id: string, file: ProbedFacts & { kind: AssetKind; contentType: string }): Promise<Asset | null> {
    const done = rowsAffected(
      await this.db.query(
        `UPDATE assets SET status = 'present', kind = $2, content_type = $3, size_bytes = $4, duration = $5, width = $6, height = $7,
           video_codec = $8, audio_codec = $9, ingest_lease_until = NULL, updated_at = now()
         WHERE id = $1 AND status = 'ingesting'`,
        [id, file.kind, file.contentType, file.sizeBytes, file.duration, file.width, file.height, file.videoCodec, file.audioCodec],
      ),
    );
    return done ? this.findById(id) : null;
  }

  /** A copy that failed leaves no row, so the next job tries afresh. */
  async deleteFailedCopy(id: string): Promise<void> {
    await this.db.query(`DELETE FROM assets WHERE id = $1 AND status = 'ingesting'`, [id]);
  }

  /** Copies whose copier died `graceSeconds` ago or more; returns their storage keys. */
  async deleteLapsedCopies(graceSeconds: number): Promise<{ id: string; storage_key: string }[]> {
    const [rows]: [{ id: string; storage_key: string }[], number] = await this.db.query(
      `DELETE FROM assets WHERE status = 'ingesting' AND ingest_lease_until < now() - make_interval(secs => $1) RETURNING id, storage_key`,
      [graceSeconds],
    );
    return rows;
  }

  /** Upload slots reserved `ageSeconds` ago or more that are still reserved (oldest first). */
  staleSlots(ageSeconds: number, limit: number): Promise<Asset[]> {
    return this.db
      .getRepository(Asset)
      .createQueryBuilder('a')
      .where(`a.status = 'reserved' AND a.ingestedFrom IS NULL AND a.createdAt < now() - make_interval(secs => :age)`, { age: ageSeconds })
      .orderBy('a.createdAt')
      .take(limit)
      .getMany();
  }

  /** Deletes a slot only while it is still reserved and old enough (bytes announced meanwhile keep it). */
  async deleteStaleSlot(id: string, ageSeconds: number): Promise<boolean> {
    return rowsAffected(
      await this.db.query(`DELETE FROM assets WHERE id = $1 AND status = 'reserved' AND created_at < now() - make_interval(secs => $2)`, [id, ageSeconds]),
    );
  }
}
