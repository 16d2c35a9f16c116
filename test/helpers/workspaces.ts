import type { INestApplicationContext } from '@nestjs/common';
import { newId } from '../../src/common/ids';
import { TransactionRepository } from '../../src/infra/database/transaction.repository';
import type { Workspace } from '../../src/workspaces/workspace.entity';
import { WorkspaceRepository } from '../../src/workspaces/workspace.repository';

/** A workspace row written through its repository, unverified, for the middle-tier files (an app or a testing module). */
export function insertWorkspace(nest: INestApplicationContext, fields: { name: string; email?: string | null; plan?: string }): Promise<Workspace> {
  const workspaces = nest.get(WorkspaceRepository);
  return nest
    .get(TransactionRepository)
    .run((tx) => workspaces.insert(tx, { id: newId('ws'), name: fields.name, email: fields.email ?? null, emailVerifiedAt: null, plan: fields.plan ?? 'free' }));
}
