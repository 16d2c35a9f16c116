import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { Storage } from '../infra/storage/storage';
import { UpdateWorkspaceDto } from './dto/update-workspace.dto';
import { Workspace } from './workspace.entity';
import { toWorkspaceView, WorkspaceView } from './workspace.view';

@Injectable()
export class WorkspacesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: Storage,
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
   * assets), so its keys stop working at once; then its files (uploads, copies, renders), which all
   * live under its id in storage.
   */
  async remove(workspace: Workspace): Promise<void> {
    await this.db.getRepository(Workspace).delete({ id: workspace.id });
    await this.storage.deleteFolder(workspace.id);
  }
}
