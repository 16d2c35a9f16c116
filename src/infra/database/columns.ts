import { Column, CreateDateColumn, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * The column shapes every entity repeats, one decorator each; each passes TypeORM the same options
 * as the stack it replaced, so the mapping (and what a migration would generate) is unchanged.
 */

/** The text primary key (`prefix_` and a ULID, made by common/ids). */
export function IdColumn(): PropertyDecorator {
  return PrimaryColumn('text');
}

/** The owning workspace: every query of a tenant's rows is scoped by it. */
export function WorkspaceIdColumn(): PropertyDecorator {
  return Column('text', { name: 'workspace_id' });
}

/** `created_at`, set by the insert. */
export function CreatedAtColumn(): PropertyDecorator {
  return CreateDateColumn({ name: 'created_at', type: 'timestamptz' });
}

/** `updated_at`, set by each save. */
export function UpdatedAtColumn(): PropertyDecorator {
  return UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' });
}

/** An instant that has not come yet while null (`completed_at`, `revoked_at`, …). */
export function TimestampOrNullColumn(name: string): PropertyDecorator {
  return Column('timestamptz', { name, nullable: true });
}

/** A JSON object column that starts empty (`metadata`, brand kit fields). */
export function JsonbObjectColumn(): PropertyDecorator {
  return Column('jsonb', { default: {} });
}
