import { Job } from './job.entity';

/** The Job object, as every route and webhook shows it. */
export function toJobView(job: Job) {
  return {
    id: job.id,
    kind: job.kind,
    workspace_id: job.workspaceId,
    status: job.status,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
    is_preview: job.isPreview,
    task_type: job.taskType,
    progress_percent: job.progressPercent,
    progress_stage: job.progressStage,
    output: job.output,
    result: job.result,
    error: job.error,
    metadata: job.metadata,
    // Renders of a project name it and the version rendered; null otherwise.
    project_id: job.projectId,
    project_version: job.projectVersion,
    // A batch's rows name it and their row number (from 1); null otherwise.
    batch_id: job.batchId,
    batch_row: job.batchRow,
    completed_at: job.completedAt?.toISOString() ?? null,
  };
}

export type JobView = ReturnType<typeof toJobView>;
