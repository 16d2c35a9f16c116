import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { UsageService } from './usage.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesService } from './workspaces.service';

@Module({ imports: [JobsModule], controllers: [WorkspacesController], providers: [WorkspacesService, UsageService], exports: [UsageService, WorkspacesService] })
export class WorkspacesModule {}
