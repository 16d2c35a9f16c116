import { Module } from '@nestjs/common';
import { UsageService } from './usage.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesService } from './workspaces.service';

@Module({ controllers: [WorkspacesController], providers: [WorkspacesService, UsageService], exports: [UsageService] })
export class WorkspacesModule {}
