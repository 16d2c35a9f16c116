import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, TimestampOrNullColumn, UpdatedAtColumn } from '../infra/database/columns';

@Entity('workspaces')
export class Workspace {
  @IdColumn()
  id: string;

  @Column('text')
  name: string;

  /** Lower-cased; unique when set. */
  @Column('text', { nullable: true })
  email: string | null;

  @TimestampOrNullColumn('email_verified_at')
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
  @TimestampOrNullColumn('suspended_at')
  suspendedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
