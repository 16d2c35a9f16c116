import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A stored render request (a template: its strings may hold `{{name}}` placeholders), versioned. */
@Entity('projects')
export class Project {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text')
  name: string;

  /** 1 at creation, +1 per applied ops batch. */
  @Column('integer', { default: 1 })
  version: number;

  @Column('jsonb', { name: 'render_request' })
  renderRequest: Record<string, unknown>;

  /** Default values of the template's variables. */
  @Column('jsonb', { default: {} })
  variables: Record<string, string>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
