import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
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
  @ApiOperation({
    summary: 'Create a workspace and its first API key; the key is gated until the emailed code is verified',
  })
  signup(@Body() body: SignupDto) {
    return this.signups.signup(body.workspace_name, body.email);
  }

  @Public()
  @Post('signup/verify')
  @HttpCode(200)
  @RateLimit('verify_ip')
  @ApiKeyAuth()
  @ApiOperation({
    summary: 'Activate the key a signup returned: send that key as Authorization: Bearer and the emailed 6-digit code',
  })
  verify(@Body() body: VerifySignupDto, @Headers('authorization') authorization?: string) {
    return this.signups.verify(body.email, body.code, bearerToken(authorization));
  }

  @Public()
  @Post('auth/sync')
  @HttpCode(200)
  @RateLimit('auth_sync')
  @ApiOperation({ summary: 'Sign in with an OIDC ID token; the first login returns a plaintext key once' })
  sync(@Body() body: AuthSyncDto) {
    return this.authSync.sync(body.id_token);
  }
}
