import { DynamicModule, Module } from '@nestjs/common';
import { modulePerRole } from '../common/module-per-role';
import { AssetsModule } from '../assets/assets.module';
import { JobsModule } from '../jobs/jobs.module';
import { TasksModule } from '../tasks/tasks.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { PreviewRendererService } from './preview-renderer.service';
import { RemotionRenderer } from './engine/remotion-renderer';
import { RenderPipelineService } from './render-pipeline.service';
import { RenderWorker } from './render.worker';
import { BrandKitRepository } from '../brand-kits/brand-kit.repository';
import { RenderTemplatesService } from './render-templates.service';
import { CaptionSourcesService } from './caption-sources.service';
import { RenderReuseService } from './render-reuse.service';
import { RendersController } from './renders.controller';
import { RendersService } from './renders.service';
import { ChunkedRenderService } from './chunks/chunked-render.service';
import { ChunkRendererService } from './chunks/chunk-renderer.service';
import { RenderChunkRepository } from './chunks/render-chunk.repository';
import { RenderChunkWorker } from './chunks/render-chunk.worker';
import { WorkerPresenceService } from './chunks/worker-presence.service';
import { WorkerRepository } from './chunks/worker.repository';

/** Routes only where the REST API is served; the queue and worker everywhere (the worker idles in `api`). */
@Module({})
export class RendersModule {
  static forRole(servesApi: boolean): DynamicModule {
    return modulePerRole(RendersModule, servesApi, () => ({
      imports: [JobsModule, AssetsModule.forRole(servesApi), WebhooksModule.forRole(servesApi), TasksModule.forRole(servesApi)],
      // Previews are render jobs drawn by the same worker (PreviewRendererService); their routes are PreviewsModule's.
      controllers: servesApi ? [RendersController] : [],
      providers: [RendersService, RenderPipelineService, RenderWorker, RemotionRenderer, PreviewRendererService, RenderTemplatesService, BrandKitRepository, CaptionSourcesService, RenderReuseService,
        ChunkedRenderService, ChunkRendererService, RenderChunkRepository, RenderChunkWorker, WorkerPresenceService, WorkerRepository],
      exports: [RendersService, RenderReuseService],
    }));
  }
}
