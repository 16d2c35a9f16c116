import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { Storage } from '../infra/storage/storage';
import { UpdateWorkspaceDto } from './dto/update-workspace.dto';
import { Workspace } from './workspace.entity';
import { WorkspaceJobs } from './workspace-jobs';
import { WorkspaceRepository } from './workspace.repository';
import { toWorkspaceView, WorkspaceView } from './workspace.view';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly rows: WorkspaceRepository,
    private readonly jobs: WorkspaceJobs,
    private readonly transactions: TransactionRepository,
    private readonly storage: Storage,
  ) {}

  async update(workspace: Workspace, changes: UpdateWorkspaceDto): Promise<WorkspaceView> {
    if (changes.name === undefined && changes.ingest_external === undefined) {
      throw ApiError.validation([{ type: 'missing', loc: ['body'], msg: 'Send name, ingest_external or both', pointer: '' }]);
    }
    await this.rows.update(workspace.id, { name: changes.name, ingestExternal: changes.ingest_external });
    return toWorkspaceView((await this.rows.findById(workspace.id)) ?? workspace);
  }

  /**
   * Deletes the workspace; foreign keys cascade to every row it owns (keys, jobs, webhooks,
   * assets), so its keys stop working at once, and its queued jobs leave their queues with it. A
   * running job notices within a second that its row is gone (ProgressWriter) and stops, discarding
   * what it made. Then its files (uploads, copies, renders), which all live under its id in storage.
   * The owner's DELETE /v1/workspace and the operator's admin delete both come here.
   */
  async remove(workspace: Workspace): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.jobs.dequeueAll(tx, workspace.id);
      await this.rows.delete(tx, workspace.id);
    });
    await this.storage.deleteFolder(workspace.id);
  }
}
