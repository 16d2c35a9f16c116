import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('workspaces')
export class Workspace {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  /** Lower-cased; unique when set. */
  @Column('text', { nullable: true })
  email: string | null;

  @Column('timestamptz', { name: 'email_verified_at', nullable: true })
  emailVerifiedAt: Date | null;

  @Column('text', { name: 'oidc_issuer', nullable: true })
  oidcIssuer: string | null;

  @Column('text', { name: 'oidc_subject', nullable: true })
  oidcSubject: string | null;

  @Column('text', { default: 'free' })
  plan: string;

  /** Default of a render's `ingest_external` when the request omits it. */
  @Column('boolean', { name: 'ingest_external', default: true })
  ingestExternal: boolean;

  /** Set by the operator (admin API): every key of the workspace is refused with 403 until cleared. */
  @Column('timestamptz', { name: 'suspended_at', nullable: true })
  suspendedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
