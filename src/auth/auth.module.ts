import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { AuthSyncService } from './auth-sync.service';
import { AuthController } from './auth.controller';
import { OidcVerifier } from './oidc-verifier';
import { SignupCodeRepository } from './signup-code.repository';
import { SignupService } from './signup.service';
import { SignupPolicy } from './signup-policy';

@Module({
  imports: [ApiKeysModule],
  controllers: [AuthController],
  providers: [SignupService, AuthSyncService, OidcVerifier, SignupPolicy, SignupCodeRepository, TransactionRepository],
})
export class AuthModule {}
