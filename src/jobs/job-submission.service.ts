import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { IdempotencyService, IdempotentOutcome } from '../common/idempotency/idempotency.service';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { Workspace } from '../workspaces/workspace.entity';
import { Job } from './job.entity';
import { JobPresenterService } from './job-presenter.service';
import { JobView } from './job.view';
import { JobRepository, NewJob } from './job.repository';
import { JobSchedulerService } from './job-scheduler.service';
import { Allowance, QuotaService } from './quota.service';

/** What one Idempotency-Key is bound to: its scope (`renders`, `tasks`, ...) and the request it answers. */
export interface SubmissionKey {
  scope: string;
  key: string | undefined;
  payload: unknown;
}

/** One job row to write; the kind decides the quota, the row and how it reaches a worker. */
export interface JobWrite {
  /** Reserved before the row is written (402 when it does not fit); absent when unmetered or reserved by the caller. */
  reserve?: { allowance: Allowance; seconds: number; lengthUnknown?: boolean };
  row: NewJob;
  /** The fair scheduler's queue named by the row (default), another queue (source ingest), or none (a reused render). */
  dispatch?: 'schedule' | 'none' | ((tx: EntityManager, job: Job) => Promise<void>);
}

/**
 * The one job submission of renders, tasks, previews and batches: idempotency claim or replay,
 * quota reservation, job row, queue entry — all in one transaction, so a refusal or a crash leaves
 * no half-submitted job and one key never makes two jobs. The kind's service checks the request
 * before (a 422 writes nothing) and says what to write and how to answer.
 */
@Injectable()
export class JobSubmissionService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly idempotency: IdempotencyService,
    private readonly quota: QuotaService,
    private readonly jobs: JobRepository,
    private readonly scheduler: JobSchedulerService,
    private readonly presenter: JobPresenterService,
  ) {}

  /** Opens the transaction and claims the key: `create` runs once per key; a repeat replays its answer. */
  idempotent<T>(workspace: Workspace, key: SubmissionKey, create: (tx: EntityManager) => Promise<T>): Promise<IdempotentOutcome<T>> {
    return this.transactions.run((tx) => this.idempotency.run(tx, { workspaceId: workspace.id, ...key }, () => create(tx)));
  }

  /** One job submitted whole: `write` returns what to write (its checks may still refuse), `present` the answer (the job's view by default). */
  submit<T = JobView>(
    workspace: Workspace,
    key: SubmissionKey,
    write: (tx: EntityManager) => Promise<JobWrite> | JobWrite,
    present?: (job: Job, tx: EntityManager) => Promise<T>,
  ): Promise<IdempotentOutcome<T>> {
    return this.idempotent(workspace, key, async (tx) => {
      const job = await this.write(tx, workspace, await write(tx));
      return present ? present(job, tx) : ((await this.presenter.present(job)) as T);
    });
  }

  /** Quota → row → queue entry, in the caller's transaction (a batch writes many rows in one). */
  async write(tx: EntityManager, workspace: Workspace, job: JobWrite): Promise<Job> {
    if (job.reserve) await this.quota.reserve(tx, job.reserve.allowance, workspace, job.reserve.seconds, job.reserve.lengthUnknown ?? false);
    const row = await this.jobs.insert(tx, job.row);
    const dispatch = job.dispatch ?? 'schedule';
    if (dispatch === 'schedule') await this.scheduler.enqueue(tx, row, workspace.plan);
    else if (dispatch !== 'none') await dispatch(tx, row);
    return row;
  }
}
