import { Workspace } from './workspace.entity';

export interface WorkspaceView {
  id: string;
  name: string;
  email: string | null;
  email_verified: boolean;
  plan: string;
  /** Default of `ingest_external` for renders that omit it. */
  ingest_external: boolean;
  created_at: string;
  updated_at: string;
}

export function toWorkspaceView(ws: Workspace): WorkspaceView {
  return {
    id: ws.id,
    name: ws.name,
    email: ws.email,
    email_verified: ws.emailVerifiedAt !== null,
    plan: ws.plan,
    ingest_external: ws.ingestExternal,
    created_at: ws.createdAt.toISOString(),
    updated_at: ws.updatedAt.toISOString(),
  };
}
