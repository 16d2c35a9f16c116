import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Workspace } from './workspace.entity';
import { toWorkspaceView, WorkspaceView } from './workspace.view';

@Injectable()
export class WorkspacesService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async rename(workspace: Workspace, name: string): Promise<WorkspaceView> {
    await this.db.getRepository(Workspace).update({ id: workspace.id }, { name });
    return toWorkspaceView(await this.db.getRepository(Workspace).findOneByOrFail({ id: workspace.id }));
  }

  /**
   * Deletes the workspace; foreign keys cascade to everything it owns (keys, codes, and the jobs,
   * webhooks and assets of later modules), so its keys stop working at once.
   */
  async remove(workspace: Workspace): Promise<void> {
    await this.db.getRepository(Workspace).delete({ id: workspace.id });
  }
}
