import { Module } from '@nestjs/common';
import { RendersModule } from '../renders/renders.module';
import { ProjectRepository } from './project.repository';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';
import { TransactionRepository } from '../infra/database/transaction.repository';

/** API only: projects render through the renders module's submit. */
@Module({
  imports: [RendersModule.forRole(true)],
  controllers: [ProjectsController],
  providers: [ProjectsService, ProjectRepository, TransactionRepository],
})
export class ProjectsModule {}
