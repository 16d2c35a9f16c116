import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, JsonbObjectColumn, UpdatedAtColumn, WorkspaceIdColumn } from '../infra/database/columns';

/** A stored render request (a template: its strings may hold `{{name}}` placeholders), versioned. */
@Entity('projects')
export class Project {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text')
  name: string;

  /** 1 at creation, +1 per applied ops batch. */
  @Column('integer', { default: 1 })
  version: number;

  @Column('jsonb', { name: 'render_request' })
  renderRequest: Record<string, unknown>;

  /** Default values of the template's variables. */
  @JsonbObjectColumn()
  variables: Record<string, string>;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
