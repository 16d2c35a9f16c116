import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Workspace } from './workspace.entity';
import { PlanCatalog } from './plan-catalog';

export interface UsagePeriod {
  start: Date;
  end: Date;
}

export interface UsageReport {
  period: { start: string; end: string };
  render_minutes: number;
  render_count: number;
  task_count: number;
  egress_bytes: number;
  /** Limits are null on a plan without one. */
  plan: { name: string; render_minutes_limit: number | null; render_minutes_remaining: number | null };
}

/** Calendar month in UTC: the free plan's billing period. */
export function billingPeriod(now = new Date()): UsagePeriod {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

export function rollingPeriod(days: number, now = new Date()): UsagePeriod {
  return { start: new Date(now.getTime() - days * 86_400_000), end: now };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Usage over a period. Render minutes are completed, non-preview output seconds / 60 (docs/decisions/0004-jobs.md),
 * counted when the render completed; tasks count when submitted. Egress is not metered yet (0).
 */
@Injectable()
export class UsageService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanCatalog,
  ) {}

  async report(workspace: Workspace, period?: '7d' | '30d' | '90d'): Promise<UsageReport> {
    const window = period ? rollingPeriod(Number.parseInt(period, 10)) : billingPeriod();
    const month = billingPeriod();
    const [row]: { seconds: number; renders: number; tasks: number; month_seconds: number }[] = await this.db.query(
      `SELECT
         COALESCE(SUM(output_seconds) FILTER (WHERE billable AND completed_at >= $2 AND completed_at < $3), 0)::float8 AS seconds,
         COUNT(*) FILTER (WHERE billable AND completed_at >= $2 AND completed_at < $3)::int AS renders,
         COUNT(*) FILTER (WHERE kind = 'task' AND created_at >= $2 AND created_at < $3)::int AS tasks,
         COALESCE(SUM(output_seconds) FILTER (WHERE billable AND completed_at >= $4 AND completed_at < $5), 0)::float8 AS month_seconds
       FROM (SELECT *, (kind = 'render' AND status = 'completed' AND NOT is_preview) AS billable
             FROM jobs WHERE workspace_id = $1) j`,
      [workspace.id, window.start, window.end, month.start, month.end],
    );
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
