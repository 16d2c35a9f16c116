import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesService } from './workspaces.service';

@Module({ imports: [JobsModule], controllers: [WorkspacesController], providers: [WorkspacesService, UsageService, UsageRepository], exports: [UsageService, WorkspacesService] })
export class WorkspacesModule {}
