import { Injectable } from '@nestjs/common';
import { Workspace } from './workspace.entity';
import { planOf } from './plans';

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
  plan: { name: string; render_minutes_limit: number; render_minutes_remaining: number };
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

/**
 * Usage of a workspace over a period. Renders and tasks do not exist yet, so the counts are zero;
 * their modules will add their figures here (completed non-preview output seconds / 60 for minutes).
 */
@Injectable()
export class UsageService {
  async report(workspace: Workspace, period?: '7d' | '30d' | '90d'): Promise<UsageReport> {
    const window = period ? rollingPeriod(Number.parseInt(period, 10)) : billingPeriod();
    const renderMinutes = 0;
    const monthMinutes = 0;
    const limit = planOf(workspace.plan).renderMinutesPerMonth;
    return {
      period: { start: window.start.toISOString(), end: window.end.toISOString() },
      render_minutes: renderMinutes,
      render_count: 0,
      task_count: 0,
      egress_bytes: 0,
      plan: { name: workspace.plan, render_minutes_limit: limit, render_minutes_remaining: Math.max(0, limit - monthMinutes) },
    };
  }
}
