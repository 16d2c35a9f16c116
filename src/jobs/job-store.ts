import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, FindOptionsWhere, LessThan } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { decodeCursor, Page, toPageAsync } from '../common/pagination/pagination';
import { Workspace } from '../workspaces/workspace.entity';
import { Job, JobKind, TERMINAL_STATUSES } from './job.entity';
import { JobPresenter } from './job.presenter';
import { JobScheduler } from './job-scheduler';
import { JobView } from './job.view';

const NOUN: Record<JobKind, string> = { render: 'Render', task: 'Task' };

/** Reading and cancelling jobs of one kind, always scoped to the caller's workspace (else 404). */
@Injectable()
export class JobStore {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly presenter: JobPresenter,
    private readonly scheduler: JobScheduler,
  ) {}

  async find(workspace: Workspace, kind: JobKind, id: string): Promise<Job> {
    const job = await this.db.getRepository(Job).findOneBy({ id, workspaceId: workspace.id, kind });
    if (!job) throw ApiError.notFound(NOUN[kind]);
    return job;
  }

  async get(workspace: Workspace, kind: JobKind, id: string): Promise<JobView> {
    return this.presenter.present(await this.find(workspace, kind, id));
  }

  /** Newest first; `filters` narrow further (status, task type, project, previews). */
  async list(workspace: Workspace, kind: JobKind, filters: FindOptionsWhere<Job>, page: { limit: number; cursor?: string }): Promise<Page<JobView>> {
    const before = decodeCursor(page.cursor, kind);
    const rows = await this.db.getRepository(Job).find({
      where: { ...filters, workspaceId: workspace.id, kind, ...(before ? { id: LessThan(before) } : {}) },
      order: { id: 'DESC' },
      take: page.limit + 1,
    });
    return toPageAsync(rows, page.limit, (job) => this.presenter.present(job));
  }

  /**
   * Moves a non-terminal job to `cancelled` (409 when it already ended) and takes it off its queue
   * in the same transaction, so it never takes a worker slot. A worker already running it
   * notices within a second (its progress writes stop matching) and stops its browser, encoder
   * or engine.
   */
  async cancel(workspace: Workspace, kind: JobKind, id: string): Promise<JobView> {
    const job = await this.db.transaction(async (tx) => {
      const current = await tx
        .getRepository(Job)
        .createQueryBuilder('j')
        .setLock('pessimistic_write')
        .where('j.id = :id AND j.workspaceId = :ws AND j.kind = :kind', { id, ws: workspace.id, kind })
        .getOne();
      if (!current) throw ApiError.notFound(NOUN[kind]);
      if (TERMINAL_STATUSES.includes(current.status)) {
        throw new ApiError('conflict', `${NOUN[kind]} ${id} is already ${current.status}`, { status: current.status });
      }
      await tx.update(Job, { id }, { status: 'cancelled', completedAt: new Date(), progressStage: null });
      await this.scheduler.dequeue(tx, current);
      return tx.findOneByOrFail(Job, { id });
    });
    return this.presenter.present(job);
  }
}
