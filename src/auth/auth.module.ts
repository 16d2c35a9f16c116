import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuthSyncService } from './auth-sync.service';
import { AuthController } from './auth.controller';
import { OidcVerifier } from './oidc-verifier';
import { SignupService } from './signup.service';
import { SignupPolicy } from './signup-policy';

@Module({
  imports: [ApiKeysModule],
  controllers: [AuthController],
  providers: [SignupService, AuthSyncService, OidcVerifier, SignupPolicy],
})
export class AuthModule {}
