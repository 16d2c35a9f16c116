import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { JobsModule } from '../jobs/jobs.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AdminAuditRepository } from './admin-audit.repository';
import { AdminKeyGuard } from './admin-key.guard';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';

/** The operator's /v1/admin/ routes (ADMIN_API_KEY) and the audit trail of their changes. */
@Module({
  imports: [ApiKeysModule, JobsModule, WorkspacesModule],
  controllers: [AdminController],
  providers: [AdminService, AdminAuditRepository, AdminKeyGuard, TransactionRepository],
})
export class AdminModule {}
