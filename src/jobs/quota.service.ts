import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { ApiError } from '../common/errors/api-error';
import { PlanCatalogService } from '../workspaces/plan-catalog.service';
import { FREE_PLAN_NAME, type PlanLimits } from '../config/plans';
import { billingPeriod } from '../workspaces/usage-period';
import { Workspace } from '../workspaces/workspace.entity';
import { WorkspaceRepository } from '../workspaces/workspace.repository';
import { JobFailure } from './job-failure';
import { JobRepository } from './job.repository';
import { Allowance, QuotaRepository } from './quota.repository';

export type { Allowance } from './quota.repository';

const ALLOWANCE = {
  render: { noun: 'render minutes', perMonth: (plan: PlanLimits) => plan.renderMinutesPerMonth },
  transcribe: { noun: 'transcription minutes', perMonth: (plan: PlanLimits) => plan.transcribeMinutesPerMonth },
} as const;

/**
 * The plan's monthly allowances (docs/decisions/0005-plans-quotas-fairness.md). Spent seconds are what finished jobs used this
 * calendar month (completed renders' output seconds; transcribed audio of tasks that did not fail
 * or get cancelled); unfinished jobs hold their `reserved_seconds`. A submit reserves its estimate,
 * so a backlog of queued jobs cannot overspend; a failed or cancelled job releases its hold simply
 * by no longer counting. Checks of one workspace take an advisory lock, so two submits cannot both
 * take the last minutes.
 */
@Injectable()
export class QuotaService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly quotas: QuotaRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly jobs: JobRepository,
    private readonly plans: PlanCatalogService,
  ) {}

  /** Seconds of the allowance a month under a plan; null: unlimited. */
  private limitSeconds(allowance: Allowance, plan: string): number | null {
    const perMonth = ALLOWANCE[allowance].perMonth(this.plans.limits(plan));
    return perMonth === null ? null : perMonth * 60;
  }

  /**
   * Seconds used and held this month, leaving out `exceptJobId`. `startedOnly` counts, of the
   * unfinished jobs, only those a worker has taken (dispatch: the jobs queued behind are checked
   * when their own turn comes).
   */
  secondsCounted(allowance: Allowance, workspaceId: string, manager?: EntityManager, exceptJobId = '', startedOnly = false): Promise<number> {
    return this.quotas.countedSeconds({ allowance, workspaceId, period: billingPeriod(), exceptJobId, startedOnly }, manager);
  }

  /**
   * Submit: refuses (402 quota_exceeded) a job whose estimate does not fit what is left of the
   * month. Call inside the transaction that inserts the job with `reserved_seconds = seconds`.
   * A job that costs nothing (a still) always fits; one whose length is not known yet
   * (`lengthUnknown`, confirmed by the worker) needs something left.
   */
  async reserve(tx: EntityManager, allowance: Allowance, workspace: Workspace, seconds: number, lengthUnknown = false): Promise<void> {
    await this.quotas.lock(tx, allowance, workspace.id);
    const refused = await this.refusal(allowance, workspace, seconds, tx, lengthUnknown);
    if (refused) throw refused;
  }

  /**
   * The 402 a job needing `seconds` would get now, or null when it fits. Without the lock of
   * `reserve` it is an answer, not a promise (a preview's dry run reports it).
   */
  async refusal(allowance: Allowance, workspace: Workspace, seconds: number, manager?: EntityManager, lengthUnknown = false): Promise<ApiError | null> {
    const limit = this.limitSeconds(allowance, workspace.plan);
    if (limit === null) return null;
    const counted = await this.secondsCounted(allowance, workspace.id, manager);
    if (counted + seconds <= limit && !(lengthUnknown && counted >= limit)) return null;
    const period = billingPeriod();
    const { noun } = ALLOWANCE[allowance];
    return new ApiError(
      'quota_exceeded',
      `The ${workspace.plan} plan allows ${limit / 60} ${noun} a month; ${minutes(Math.max(0, limit - counted))} remain (queued and running jobs included) and this job needs ${minutes(seconds)}. The allowance resets on ${period.end.toISOString().slice(0, 10)}`,
      {
        [`${allowance}_minutes_limit`]: limit / 60,
        [`${allowance}_minutes_used`]: Math.round((counted / 60) * 100) / 100,
        resets_at: period.end.toISOString(),
      },
    );
  }

  /**
   * Worker: recognising `seconds` more of speech for a render (captions from an element) must fit
   * the month's transcription minutes, else the job fails with `quota_exceeded` before recognising.
   */
  async assertRoom(allowance: Allowance, workspaceId: string, seconds: number): Promise<void> {
    const limit = this.limitSeconds(allowance, await this.planName(workspaceId));
    if (limit === null) return;
    const counted = await this.secondsCounted(allowance, workspaceId);
    if (counted + seconds > limit) {
      throw new JobFailure(
        'quota_exceeded',
        `Recognising this source's speech needs ${minutes(seconds)} of ${ALLOWANCE[allowance].noun}, but only ${minutes(Math.max(0, limit - counted))} of the month's ${limit / 60} remain`,
      );
    }
  }

  /**
   * Worker, once the media are probed (dispatch): replaces the job's estimate by the real figure,
   * or fails the job with `quota_exceeded` (before any rendering) when it no longer fits the
   * workspace's plan as it is now. What counts against it is the month's finished jobs and those
   * already running; jobs still queued behind it are checked at their own dispatch, so after a
   * plan change the queue is served in order until the new allowance is spent, and the job's own
   * hold is replaced, never added twice.
   */
  async confirm(allowance: Allowance, job: { id: string; workspaceId: string }, seconds: number): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.quotas.lock(tx, allowance, job.workspaceId);
      const plan = await this.planName(job.workspaceId, tx);
      const limit = this.limitSeconds(allowance, plan);
      const others = limit === null ? 0 : await this.secondsCounted(allowance, job.workspaceId, tx, job.id, true);
      if (limit !== null && others + seconds > limit) {
        throw new JobFailure(
          'quota_exceeded',
          `Now that its media are known this job needs ${minutes(seconds)} of ${ALLOWANCE[allowance].noun}, but only ${minutes(Math.max(0, limit - others))} of the ${plan} plan's ${limit / 60} a month remain (finished and running jobs counted)`,
        );
      }
      await this.jobs.setReservedSeconds(tx, job.id, seconds);
    });
  }

  /** The plan of a workspace, for workers that hold only a job. */
  async planName(workspaceId: string, manager?: EntityManager): Promise<string> {
    return (await this.workspaces.findById(workspaceId, manager))?.plan ?? FREE_PLAN_NAME;
  }
}

function minutes(seconds: number): string {
  return `${(seconds / 60).toFixed(2)} minutes`;
}
