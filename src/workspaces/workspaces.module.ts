import { Module } from '@nestjs/common';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesService } from './workspaces.service';

/** GET/PATCH/DELETE /v1/workspace and usage; a delete's queued jobs leave the queue through the WorkspaceJobs port (bound by the root). */
@Module({ controllers: [WorkspacesController], providers: [WorkspacesService, UsageService, UsageRepository, TransactionRepository], exports: [UsageService, WorkspacesService] })
export class WorkspacesModule {}
