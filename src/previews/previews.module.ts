import { Module } from '@nestjs/common';
import { AssetsModule } from '../assets/assets.module';
import { JobsModule } from '../jobs/jobs.module';
import { RendersModule } from '../renders/renders.module';
import { DryRunSourcesService } from './dry-run-sources.service';
import { PreviewsController } from './previews.controller';
import { PreviewsService } from './previews.service';

/**
 * POST /v1/preview (API roles): dry runs and preview jobs. A preview job is a render job submitted
 * through RendersService and drawn by the render worker (renders' PreviewRendererService); nothing in
 * renders imports this folder.
 */
@Module({
  imports: [JobsModule, AssetsModule.forRole(true), RendersModule.forRole(true)],
  controllers: [PreviewsController],
  providers: [PreviewsService, DryRunSourcesService],
  exports: [PreviewsService],
})
export class PreviewsModule {}
