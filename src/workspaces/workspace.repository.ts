import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Workspace } from './workspace.entity';

export type NewWorkspace = Pick<Workspace, 'id' | 'name' | 'email' | 'emailVerifiedAt' | 'plan'> &
  Partial<Pick<Workspace, 'oidcIssuer' | 'oidcSubject'>>;

export interface AdminWorkspaceFilter {
  /** Ids below this one (the page's cursor). */
  before?: string;
  /** Part of the address, case-insensitive; `%` and `_` are plain characters. */
  email?: string;
  plan?: string;
  suspended?: boolean;
}

/** The `workspaces` table. */
@Injectable()
export class WorkspaceRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The lock signup, OIDC sync and the admin's create take for an email: no two workspaces for one address. */
  async lockEmail(tx: EntityManager, email: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`signup:${email}`]);
  }

  /** Creations of one kind in one workspace count one after another until the transaction ends. */
  async lockCap(tx: EntityManager, cap: string, workspaceId: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`cap:${cap}:${workspaceId}`]);
  }

  findById(id: string, manager: EntityManager = this.db.manager): Promise<Workspace | null> {
    return manager.findOneBy(Workspace, { id });
  }

  getById(manager: EntityManager, id: string): Promise<Workspace> {
    return manager.findOneByOrFail(Workspace, { id });
  }

  findByEmail(manager: EntityManager, email: string): Promise<Workspace | null> {
    return manager.findOneBy(Workspace, { email });
  }

  findByIdentity(manager: EntityManager, issuer: string, subject: string): Promise<Workspace | null> {
    return manager.findOneBy(Workspace, { oidcIssuer: issuer, oidcSubject: subject });
  }

  /** The row locked for update, or null. */
  lockById(tx: EntityManager, id: string): Promise<Workspace | null> {
    return tx.getRepository(Workspace).createQueryBuilder('w').setLock('pessimistic_write').where('w.id = :id', { id }).getOne();
  }

  async insert(manager: EntityManager, workspace: NewWorkspace): Promise<Workspace> {
    await manager.insert(Workspace, workspace);
    return this.getById(manager, workspace.id);
  }

  async update(
    id: string,
    changes: Partial<Pick<Workspace, 'name' | 'ingestExternal' | 'plan' | 'suspendedAt' | 'emailVerifiedAt' | 'oidcIssuer' | 'oidcSubject'>>,
    manager: EntityManager = this.db.manager,
  ): Promise<void> {
    await manager.update(Workspace, { id }, changes);
  }

  /** Every row the workspace owns cascades. */
  async delete(tx: EntityManager, id: string): Promise<void> {
    await tx.delete(Workspace, { id });
  }

  /** The admin list, newest first: `take` rows below the cursor matching the filter. */
  listForAdmin(filter: AdminWorkspaceFilter, take: number): Promise<Workspace[]> {
    const rows = this.db.getRepository(Workspace).createQueryBuilder('w').orderBy('w.id', 'DESC').take(take);
    if (filter.before) rows.andWhere('w.id < :before', { before: filter.before });
    if (filter.email) rows.andWhere(`w.email ILIKE :email ESCAPE '\\'`, { email: `%${filter.email.toLowerCase().replace(/[\\%_]/g, '\\$&')}%` });
    if (filter.plan) rows.andWhere('w.plan = :plan', { plan: filter.plan });
    if (filter.suspended !== undefined) rows.andWhere(filter.suspended ? 'w.suspendedAt IS NOT NULL' : 'w.suspendedAt IS NULL');
    return rows.getMany();
  }

  /** How many workspaces each plan holds (plans nobody is on are absent). */
  async countByPlan(): Promise<Map<string, number>> {
    const counts: { plan: string; n: number }[] = await this.db.query(`SELECT plan, count(*)::int AS n FROM workspaces GROUP BY plan`);
    return new Map(counts.map((row) => [row.plan, row.n]));
  }
}
