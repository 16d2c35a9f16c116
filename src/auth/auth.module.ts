import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { AuthSyncService } from './auth-sync.service';
import { AuthController } from './auth.controller';
import { OidcVerifierService } from './oidc-verifier.service';
import { SignupCodeRepository } from './signup-code.repository';
import { SignupService } from './signup.service';
import { SignupPolicyService } from './signup-policy.service';

@Module({
  imports: [ApiKeysModule],
  controllers: [AuthController],
  providers: [SignupService, AuthSyncService, OidcVerifierService, SignupPolicyService, SignupCodeRepository, TransactionRepository],
})
export class AuthModule {}
