import { Injectable } from '@nestjs/common';
import type { FindOptionsWhere } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { decodeCursor, Page, toPageAsync } from '../common/pagination/pagination';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { Workspace } from '../workspaces/workspace.entity';
import { Job, JobKind, TERMINAL_STATUSES } from './job.entity';
import { JobRepository } from './job.repository';
import { JobPresenterService } from './job-presenter.service';
import { JobChangeListener } from './job-change-listener.service';
import { JobReadCache } from './job-read-cache';
import { JobSchedulerService } from './job-scheduler.service';
import { JobView } from './job.view';

const NOUN: Record<JobKind, string> = { render: 'Render', task: 'Task' };

/** Reading and cancelling jobs of one kind, always scoped to the caller's workspace (else 404). */
@Injectable()
export class JobStoreService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly jobs: JobRepository,
    private readonly presenter: JobPresenterService,
    private readonly scheduler: JobSchedulerService,
    private readonly readCache: JobReadCache,
    private readonly changes: JobChangeListener,
  ) {}

  async find(workspace: Workspace, kind: JobKind, id: string): Promise<Job> {
    const job = await this.jobs.findInWorkspace(workspace.id, kind, id);
    if (!job) throw ApiError.notFound(NOUN[kind]);
    return job;
  }

  /** From the read cache while the job is unchanged (record 0133), else read (once for concurrent misses), presented and kept. */
  async get(workspace: Workspace, kind: JobKind, id: string): Promise<JobView> {
    return this.readCache.read(workspace.id, kind, id, async () => {
      // A miss: make sure the listener that lets the next read be a hit is up (or retrying).
      this.changes.start();
      return this.presenter.present(await this.find(workspace, kind, id));
    });
  }

  /** Newest first; `filters` narrow further (status, task type, project, previews). */
  async list(workspace: Workspace, kind: JobKind, filters: FindOptionsWhere<Job>, page: { limit: number; cursor?: string }): Promise<Page<JobView>> {
    const before = decodeCursor(page.cursor, kind);
    const rows = await this.jobs.list(workspace.id, kind, filters, page.limit, before);
    return toPageAsync(rows, page.limit, (job) => this.presenter.present(job));
  }

  /** A batch's renders in row order (the caller checked the batch is the workspace's). */
  async listBatch(workspace: Workspace, batchId: string, page: { limit: number; cursor?: string }): Promise<Page<JobView>> {
    const rows = await this.jobs.listBatchRows(batchId, undefined, { limit: page.limit, after: decodeCursor(page.cursor, 'render') });
    return toPageAsync(rows.filter((job) => job.workspaceId === workspace.id), page.limit, (job) => this.presenter.present(job));
  }

  /**
   * Moves a non-terminal job to `cancelled` (409 when it already ended) and takes it off its queue
   * in the same transaction, so it never takes a worker slot. A worker already running it
   * notices within a second (its progress writes stop matching) and stops its browser, encoder
   * or engine.
   */
  async cancel(workspace: Workspace, kind: JobKind, id: string): Promise<JobView> {
    const job = await this.transactions.run(async (tx) => {
      const current = await this.jobs.lockInWorkspace(tx, workspace.id, kind, id);
      if (!current) throw ApiError.notFound(NOUN[kind]);
      if (TERMINAL_STATUSES.includes(current.status)) {
        throw new ApiError('conflict', `${NOUN[kind]} ${id} is already ${current.status}`, { status: current.status });
      }
      await this.jobs.cancel(tx, id);
      await this.scheduler.dequeue(tx, current);
      // Identical batch rows were waiting for this one to render for them: the first renders instead.
      const promoted = await this.jobs.promoteFollower(tx, id, current.reservedSeconds);
      if (promoted) await this.scheduler.enqueue(tx, promoted, workspace.plan);
      return (await this.jobs.findById(id, tx))!;
    });
    return this.presenter.present(job);
  }
}
