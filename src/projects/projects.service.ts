import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination/pagination';
import { RendersService, RenderSubmitOut } from '../renders/renders.service';
import { Workspace } from '../workspaces/workspace.entity';
import { WorkspaceCapsService } from '../workspaces/workspace-caps.service';
import { CreateProjectDto, ProjectOpsDto, ProjectRenderDto } from './dto/project.dto';
import { Project } from './project.entity';
import { ProjectRepository } from './project.repository';
import { applyOps, assertValidTemplate, parseOps, parseVariables } from './project-template';
import { ProjectView, toProjectView } from './project.view';
import { TransactionRepository } from '../infra/database/transaction.repository';

/** Projects (spec 4.4): stored, versioned render requests. Another workspace's id is 404 everywhere. */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly projects: ProjectRepository,
    private readonly renders: RendersService,
    private readonly caps: WorkspaceCapsService,
  ) {}

  async create(workspace: Workspace, body: CreateProjectDto): Promise<ProjectView> {
    const variables = parseVariables(body.variables);
    assertValidTemplate(body.render_request, variables);
    const project = await this.transactions.run(async (tx) => {
      await this.caps.assertBelow(tx, workspace, 'projects', () => this.projects.countInWorkspace(tx, workspace.id));
      return this.projects.insert(tx, { id: newId('proj'), workspaceId: workspace.id, name: body.name, renderRequest: body.render_request, variables });
    });
    return toProjectView(project, 0, 'full');
  }

  async list(workspace: Workspace, limit: number, cursor?: string): Promise<Page<ProjectView>> {
    const rows = await this.projects.list(workspace.id, limit, decodeCursor(cursor, 'proj'));
    const counts = await this.projects.renderCounts(rows.map((row) => row.id));
    return toPage(rows, limit, (row) => toProjectView(row, counts.get(row.id) ?? 0, 'summary'));
  }

  async get(workspace: Workspace, id: string, view: 'summary' | 'full'): Promise<ProjectView> {
    return this.present(await this.find(workspace, id), view);
  }

  /** One batch, all or nothing, under a row lock: the version read is the version replaced. */
  async applyOps(workspace: Workspace, id: string, body: ProjectOpsDto): Promise<ProjectView> {
    const ops = parseOps(body.ops);
    const project = await this.transactions.run(async (tx) => {
      const current = await this.projects.lockInWorkspace(tx, workspace.id, id);
      if (!current) throw ApiError.notFound(`Project ${id}`);
      if (body.base_version !== undefined && body.base_version !== current.version) {
        throw new ApiError('conflict', `The project is at version ${current.version}, not ${body.base_version}; read it again and rebase the ops`, {
          current_version: current.version,
          base_version: body.base_version,
        });
      }
      const patched = applyOps(current.renderRequest, ops, current.variables);
      if (!(await this.projects.replaceRequest(tx, id, current.version, patched))) {
        throw new ApiError('conflict', 'The project changed while the ops were applied; read it again', { current_version: current.version + 1 });
      }
      return (await this.projects.findInWorkspace(workspace.id, id, tx)) as Project;
    });
    return this.present(project, 'full');
  }

  async render(
    workspace: Workspace,
    id: string,
    body: ProjectRenderDto,
    idempotencyKey: string | undefined,
  ): Promise<{ replayed: boolean; body: RenderSubmitOut }> {
    const project = await this.find(workspace, id);
    const given = parseVariables(body.variables);
    return this.renders.submit(workspace, project.renderRequest, {
      idempotencyKey,
      idempotencyPayload: { project_id: id, ...body },
      projectId: project.id,
      projectVersion: project.version,
      template: { variables: { ...project.variables, ...given }, pointerPrefix: '/render_request' },
    });
  }

  async remove(workspace: Workspace, id: string): Promise<void> {
    if (!(await this.projects.delete(workspace.id, id))) throw ApiError.notFound(`Project ${id}`);
  }

  private async find(workspace: Workspace, id: string): Promise<Project> {
    const project = await this.projects.findInWorkspace(workspace.id, id);
    if (!project) throw ApiError.notFound(`Project ${id}`);
    return project;
  }

  private async present(project: Project, view: 'summary' | 'full'): Promise<ProjectView> {
    const counts = await this.projects.renderCounts([project.id]);
    return toProjectView(project, counts.get(project.id) ?? 0, view);
  }
}
