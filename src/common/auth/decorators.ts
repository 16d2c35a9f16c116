import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import type { Workspace } from '../../workspaces/workspace.entity';

export const IS_PUBLIC = 'auth:public';

/** Marks a route exempt from `Authorization: Bearer` (spec part 5, rule 2). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export interface AuthenticatedRequest extends Request {
  workspace?: Workspace;
  apiKeyId?: string;
}

/** The caller's workspace, set by ApiKeyGuard. Every query a handler makes is scoped by it. */
export const CurrentWorkspace = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Workspace => {
    const workspace = ctx.switchToHttp().getRequest<AuthenticatedRequest>().workspace;
    if (!workspace) throw new Error('CurrentWorkspace used on a public route');
    return workspace;
  },
);
