import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { planOf } from '../workspaces/plans';
import { billingPeriod } from '../workspaces/usage.service';
import { Workspace } from '../workspaces/workspace.entity';

/** Render-minute allowance of the free plan (spec part 8): completed, non-preview output seconds. */
@Injectable()
export class QuotaService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async renderSecondsUsed(workspaceId: string, start: Date, end: Date): Promise<number> {
    const [row]: { seconds: number | null }[] = await this.db.query(
      `SELECT COALESCE(SUM(output_seconds), 0)::float8 AS seconds FROM jobs
       WHERE workspace_id = $1 AND kind = 'render' AND status = 'completed' AND NOT is_preview
         AND completed_at >= $2 AND completed_at < $3`,
      [workspaceId, start, end],
    );
    return row.seconds ?? 0;
  }

  /**
   * Refuses a render that would go past the month's allowance. `requestedSeconds` is the output
   * duration as far as the request tells before any media is probed (unknown media lengths take
   * the schema's fallback); the render is billed by what it actually produced.
   */
  async assertRenderAllowed(workspace: Workspace, requestedSeconds: number): Promise<void> {
    const limitSeconds = planOf(workspace.plan).renderMinutesPerMonth * 60;
    const period = billingPeriod();
    const used = await this.renderSecondsUsed(workspace.id, period.start, period.end);
    if (used >= limitSeconds || used + requestedSeconds > limitSeconds) {
      const remainingMinutes = Math.max(0, (limitSeconds - used) / 60);
      throw new ApiError(
        'quota_exceeded',
        `The ${workspace.plan} plan allows ${limitSeconds / 60} render minutes a month; ${remainingMinutes.toFixed(2)} remain and this render needs ${(requestedSeconds / 60).toFixed(2)}. The allowance resets on ${period.end.toISOString().slice(0, 10)}`,
        {
          render_minutes_limit: limitSeconds / 60,
          render_minutes_used: Math.round((used / 60) * 100) / 100,
          resets_at: period.end.toISOString(),
        },
      );
    }
  }
}
