import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { Storage } from '../infra/storage/storage';
import { UpdateWorkspaceDto } from './dto/update-workspace.dto';
import { Workspace } from './workspace.entity';
import { JobScheduler } from '../jobs/job-scheduler';
import { toWorkspaceView, WorkspaceView } from './workspace.view';

@Injectable()
export class WorkspacesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: Storage,
    private readonly scheduler: JobScheduler,
  ) {}

  async update(workspace: Workspace, changes: UpdateWorkspaceDto): Promise<WorkspaceView> {
    if (changes.name === undefined && changes.ingest_external === undefined) {
      throw ApiError.validation([{ type: 'missing', loc: ['body'], msg: 'Send name, ingest_external or both', pointer: '' }]);
    }
    await this.db.getRepository(Workspace).update({ id: workspace.id }, { name: changes.name, ingestExternal: changes.ingest_external });
    return toWorkspaceView(await this.db.getRepository(Workspace).findOneByOrFail({ id: workspace.id }));
  }

  /**
   * Deletes the workspace; foreign keys cascade to every row it owns (keys, jobs, webhooks,
   * assets), so its keys stop working at once, and its queued jobs leave their queues with it. A
   * running job notices within a second that its row is gone (ProgressWriter) and stops, discarding
   * what it made. Then its files (uploads, copies, renders), which all live under its id in storage.
   * The owner's DELETE /v1/workspace and the operator's admin delete both come here.
   */
  async remove(workspace: Workspace): Promise<void> {
    await this.db.transaction(async (tx) => {
      const waiting: { queue_name: string; queue_entry_id: string }[] = await tx.query(
        `SELECT queue_name, queue_entry_id FROM jobs WHERE workspace_id = $1 AND status = 'queued' AND queue_entry_id IS NOT NULL`,
        [workspace.id],
      );
      for (const entry of waiting) await this.scheduler.dequeue(tx, { queueName: entry.queue_name, queueEntryId: entry.queue_entry_id });
      await tx.delete(Workspace, { id: workspace.id });
    });
    await this.storage.deleteFolder(workspace.id);
  }
}
