import { Workspace } from './workspace.entity';

export interface WorkspaceView {
  id: string;
  name: string;
  email: string | null;
  email_verified: boolean;
  plan: string;
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
    created_at: ws.createdAt.toISOString(),
    updated_at: ws.updatedAt.toISOString(),
  };
}
