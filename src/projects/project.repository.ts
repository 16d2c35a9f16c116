import { Injectable } from '@nestjs/common';
import { insertRow } from '../infra/database/insert-row';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import { rowsAffected } from '../common/rows-affected';
import { Project } from './project.entity';

export type NewProject = Pick<Project, 'id' | 'workspaceId' | 'name' | 'renderRequest' | 'variables'>;

/**
 * The `projects` table. Lookups are always scoped to a workspace (another workspace's id finds
 * nothing). A request changes only through `replaceRequest`, guarded by the version it was read
 * at, so two ops batches can never both apply on the same version.
 */
@Injectable()
export class ProjectRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(tx: EntityManager, project: NewProject): Promise<Project> {
    return insertRow(tx, Project, project);
  }

  countInWorkspace(tx: EntityManager, workspaceId: string): Promise<number> {
    return tx.countBy(Project, { workspaceId });
  }

  findInWorkspace(workspaceId: string, id: string, manager: EntityManager = this.db.manager): Promise<Project | null> {
    return manager.findOneBy(Project, { id, workspaceId });
  }

  /** Locks the project for an ops batch decided in the caller's transaction. */
  lockInWorkspace(tx: EntityManager, workspaceId: string, id: string): Promise<Project | null> {
    return tx
      .getRepository(Project)
      .createQueryBuilder('p')
      .setLock('pessimistic_write')
      .where('p.id = :id AND p.workspaceId = :ws', { id, ws: workspaceId })
      .getOne();
  }

  /** Newest first, `limit + 1` rows (the page builder cuts the extra one). */
  list(workspaceId: string, limit: number, before?: string): Promise<Project[]> {
    return this.db.getRepository(Project).find({
      where: { workspaceId, ...(before ? { id: LessThan(before) } : {}) },
      order: { id: 'DESC' },
      take: limit + 1,
    });
  }

  /** version → version + 1 with the new request; false when the project moved on (or is gone). */
  async replaceRequest(tx: EntityManager, id: string, fromVersion: number, renderRequest: Record<string, unknown>): Promise<boolean> {
    return rowsAffected(
      await tx.query(
        `UPDATE projects SET render_request = $3, version = version + 1, updated_at = now() WHERE id = $1 AND version = $2`,
        [id, fromVersion, JSON.stringify(renderRequest)],
      ),
    );
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return rowsAffected(await this.db.query(`DELETE FROM projects WHERE id = $1 AND workspace_id = $2`, [id, workspaceId]));
  }

  /** Renders made from each project (previews excluded), for the summaries. */
  async renderCounts(ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows: { project_id: string; count: number }[] = await this.db.query(
      `SELECT project_id, count(*)::int AS count FROM jobs WHERE project_id = ANY($1) AND kind = 'render' AND NOT is_preview GROUP BY project_id`,
      [ids],
    );
    return new Map(rows.map((row) => [row.project_id, row.count]));
  }
}
