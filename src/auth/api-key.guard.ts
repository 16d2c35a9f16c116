import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { bearerToken } from '../common/auth/bearer';
import { AuthenticatedRequest, IS_PUBLIC } from '../common/auth/decorators';
import { ApiError } from '../common/errors/api-error';
import { suspendedError } from '../workspaces/suspension';

/** Global guard: every route needs a live API key of a verified workspace unless marked @Public. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = bearerToken(req.headers.authorization);
    if (!token) {
      throw new ApiError('unauthorized', 'Missing API key: send Authorization: Bearer <API_KEY>');
    }
    const found = await this.apiKeys.authenticate(token);
    if (!found) throw new ApiError('unauthorized', 'Invalid or revoked API key');
    req.workspace = found.workspace;
    req.apiKeyId = found.keyId;
    if (found.workspace.suspendedAt) throw suspendedError();
    if (found.pending) {
      throw new ApiError(
        'email_not_verified',
        'This key is waiting for verification: POST /v1/signup/verify with the emailed 6-digit code, sending this key as Authorization: Bearer',
      );
    }
    if (!found.workspace.emailVerifiedAt) {
      throw new ApiError(
        'email_not_verified',
        'Verify the workspace email first: POST /v1/signup/verify with the emailed 6-digit code',
      );
    }
    return true;
  }
}
