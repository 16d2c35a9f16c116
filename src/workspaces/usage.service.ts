import { Injectable } from '@nestjs/common';
import { Workspace } from './workspace.entity';
import { PlanCatalogService } from './plan-catalog.service';
import { billingPeriod, rollingPeriod } from './usage-period';
import { UsageRepository } from './usage.repository';

export { billingPeriod, rollingPeriod, type UsagePeriod } from './usage-period';

export interface UsageReport {
  period: { start: string; end: string };
  render_minutes: number;
  render_count: number;
  task_count: number;
  egress_bytes: number;
  /** Limits are null on a plan without one. */
  plan: { name: string; render_minutes_limit: number | null; render_minutes_remaining: number | null };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Usage over a period. Render minutes are completed, non-preview output seconds / 60 (docs/decisions/0004-jobs.md),
 * counted when the render completed; tasks count when submitted. Egress is not metered yet (0).
 */
@Injectable()
export class UsageService {
  constructor(
    private readonly rows: UsageRepository,
    private readonly plans: PlanCatalogService,
  ) {}

  async report(workspace: Workspace, period?: '7d' | '30d' | '90d'): Promise<UsageReport> {
    const window = period ? rollingPeriod(Number.parseInt(period, 10)) : billingPeriod();
    const month = billingPeriod();
    const row = await this.rows.totals(workspace.id, window, month);
    const limit = this.plans.limits(workspace.plan).renderMinutesPerMonth;
    return {
      period: { start: window.start.toISOString(), end: window.end.toISOString() },
      render_minutes: round2(row.seconds / 60),
      render_count: row.renders,
      task_count: row.tasks,
      egress_bytes: 0,
      plan: {
        name: workspace.plan,
        render_minutes_limit: limit,
        render_minutes_remaining: limit === null ? null : round2(Math.max(0, limit - row.month_seconds / 60)),
      },
    };
  }
}
