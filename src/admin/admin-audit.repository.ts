import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/ids';
import { requestContext } from '../common/logging/request-context';

/** Who made admin changes: the one operator key (the request id leads to the request's log line and address). */
export const ADMIN_ACTOR = 'admin_api_key';

export interface AuditEntry {
  id: string;
  action: 'workspace.create' | 'workspace.update' | 'workspace.delete';
  workspace_id: string;
  actor: string;
  request_id: string | null;
  /** The workspace as it was and as it is after (null when it did not or no longer exists). */
  before: object | null;
  after: object | null;
  created_at: string;
}

/**
 * The audit trail of admin changes (table `admin_audit`): who, what, before, after, when. Rows
 * are written in the change's own transaction, so a change and its record commit together; they
 * outlive a deleted workspace. Each is also logged once committed.
 */
@Injectable()
export class AdminAuditRepository {
  private readonly logger = new Logger('AdminAudit');

  async record(tx: EntityManager, entry: Pick<AuditEntry, 'action' | 'workspace_id' | 'before' | 'after'>): Promise<AuditEntry> {
    const full: AuditEntry = {
      id: newId('aud'),
      actor: ADMIN_ACTOR,
      request_id: requestContext.getStore()?.requestId ?? null,
      created_at: new Date().toISOString(),
      ...entry,
    };
    await tx.query(
      `INSERT INTO admin_audit (id, action, workspace_id, actor, request_id, before, after, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [full.id, full.action, full.workspace_id, full.actor, full.request_id, jsonOrNull(full.before), jsonOrNull(full.after), full.created_at],
    );
    return full;
  }

  /** The log line of a committed change. */
  log(entry: AuditEntry): void {
    this.logger.log(`${entry.action} ${entry.workspace_id} by ${entry.actor}: ${JSON.stringify({ before: entry.before, after: entry.after })}`);
  }
}

function jsonOrNull(value: object | null): string | null {
  return value === null ? null : JSON.stringify(value);
}
