import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { UsagePeriod } from './usage-period';

export interface UsageTotals {
  /** Billable render seconds completed in the window. */
  seconds: number;
  renders: number;
  /** Tasks submitted in the window. */
  tasks: number;
  /** Billable render seconds completed in the billing month. */
  month_seconds: number;
}

/** The usage report's read of `jobs`: billable renders are completed, non-preview render jobs. */
@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async totals(workspaceId: string, window: UsagePeriod, month: UsagePeriod): Promise<UsageTotals> {
    const [row]: UsageTotals[] = await this.db.query(
      `SELECT
         COALESCE(SUM(output_seconds) FILTER (WHERE billable AND completed_at >= $2 AND completed_at < $3), 0)::float8 AS seconds,
         COUNT(*) FILTER (WHERE billable AND completed_at >= $2 AND completed_at < $3)::int AS renders,
         COUNT(*) FILTER (WHERE kind = 'task' AND created_at >= $2 AND created_at < $3)::int AS tasks,
         COALESCE(SUM(output_seconds) FILTER (WHERE billable AND completed_at >= $4 AND completed_at < $5), 0)::float8 AS month_seconds
       FROM (SELECT *, (kind = 'render' AND status = 'completed' AND NOT is_preview) AS billable
             FROM jobs WHERE workspace_id = $1) j`,
      [workspaceId, window.start, window.end, month.start, month.end],
    );
    return row;
  }
}
