import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

export const IS_PUBLIC = 'auth:public';

/** Marks a route exempt from `Authorization: Bearer` (signup, auth sync, health, capabilities, …). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * What authentication attaches to a request: the caller's workspace (the auth module's guard sets
 * the full entity; here only its id matters) and the key used.
 */
export interface AuthenticatedRequest extends Request {
  workspace?: { id: string };
  apiKeyId?: string;
}

/**
 * The caller's workspace, set by ApiKeyGuard; handlers declare it as the Workspace entity. Every
 * query a handler makes is scoped by it.
 */
export const CurrentWorkspace = createParamDecorator(
  (_: unknown, ctx: ExecutionContext) => {
    const workspace = ctx.switchToHttp().getRequest<AuthenticatedRequest>().workspace;
    if (!workspace) throw new Error('CurrentWorkspace used on a public route');
    return workspace;
  },
);
