import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth, ApiRoute } from '../common/openapi/api-docs.decorators';
import { WorkspaceDto } from '../workspaces/dto/workspace.response';
import { AuthSyncResultDto, SignupResultDto } from './dto/signup.response';
import { bearerToken } from '../common/auth/bearer';
import { Public } from '../common/auth/decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { AuthSyncService } from './auth-sync.service';
import { AuthSyncDto, SignupDto, VerifySignupDto } from './dto/signup.dto';
import { SignupService } from './signup.service';

@ApiTags('onboarding')
@Controller('v1')
export class AuthController {
  constructor(
    private readonly signups: SignupService,
    private readonly authSync: AuthSyncService,
  ) {}

  @Public()
  @Post('signup')
  @RateLimit('signup_ip', 'signup_email')
  @ApiRoute({
    summary: 'Create a workspace and its first API key',
    description:
      'The key is gated (403 `email_not_verified`) until the emailed code is verified. 403 `forbidden` when the operator has closed signup or limited it to some email domains (`/v1/capabilities`, onboarding.signup).',
      ok: [201, SignupResultDto, 'The workspace, its pending key and where the code went'],
  })
  // 403: the signup policy refuses it (SIGNUP_MODE=closed, SIGNUP_EMAIL_DOMAINS) or the workspace is suspended.
  // 503: the verification email could not be sent (nothing was changed).
  @ApiErrors(403, 409, 413, 422, 503)
  signup(@Body() body: SignupDto) {
    return this.signups.signup(body.workspace_name, body.email);
  }

  @Public()
  @Post('signup/verify')
  @HttpCode(200)
  @RateLimit('verify_ip')
  @ApiKeyAuth()
  @ApiRoute({
    summary: 'Activate the key a signup returned',
    description: 'Send that key as Authorization: Bearer and the emailed 6-digit code.',
    ok: [200, WorkspaceDto, 'The verified workspace; the key now works'],
    errors: [400, 404, 413, 422],
  })
  verify(@Body() body: VerifySignupDto, @Headers('authorization') authorization?: string) {
    return this.signups.verify(body.email, body.code, bearerToken(authorization));
  }

  @Public()
  @Post('auth/sync')
  @HttpCode(200)
  @RateLimit('auth_sync')
  @ApiRoute({ summary: 'Sign in with an OIDC ID token', description: 'The first login returns a plaintext key once.', ok: [200, AuthSyncResultDto, 'The workspace (and a key on the first login)'] })
  // 503: no identity provider is configured, or its signing keys could not be fetched.
  @ApiErrors(401, 403, 413, 422, 503)
  sync(@Body() body: AuthSyncDto) {
    return this.authSync.sync(body.id_token);
  }
}
