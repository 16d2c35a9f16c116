import { DynamicModule, Module } from '@nestjs/common';
import { AssetsModule } from '../assets/assets.module';
import { JobsModule } from '../jobs/jobs.module';
import { TasksModule } from '../tasks/tasks.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { PreviewRenderer } from './preview-renderer';
import { RemotionRenderer } from './engine/remotion-renderer';
import { RenderPipeline } from './render-pipeline.service';
import { RenderWorker } from './render-worker.service';
import { BrandKitRepository } from '../brand-kits/brand-kit.repository';
import { RenderTemplates } from './render-template';
import { CaptionSources } from './caption-sources';
import { RenderReuse } from './render-reuse';
import { RendersController } from './renders.controller';
import { RendersService } from './renders.service';
import { ChunkedRender } from './chunks/chunked-render.service';
import { ChunkRenderer } from './chunks/chunk-renderer.service';
import { RenderChunkRepository } from './chunks/render-chunk.repository';
import { RenderChunkWorker } from './chunks/render-chunk-worker.service';
import { WorkerPresence } from './chunks/worker-presence.service';
import { WorkerRepository } from './chunks/worker.repository';

/** Routes only where the REST API is served; the queue and worker everywhere (the worker idles in `api`). */
@Module({})
export class RendersModule {
  // Nest tells dynamic modules apart by object identity: every importer must get the same one.
  private static readonly byRole = new Map<boolean, DynamicModule>();

  static forRole(servesApi: boolean): DynamicModule {
    const known = RendersModule.byRole.get(servesApi);
    if (known) return known;
    const module: DynamicModule = {
      module: RendersModule,
      imports: [JobsModule, AssetsModule.forRole(servesApi), WebhooksModule.forRole(servesApi), TasksModule.forRole(servesApi)],
      // Previews are render jobs drawn by the same worker (PreviewRenderer); their routes are PreviewsModule's.
      controllers: servesApi ? [RendersController] : [],
      providers: [RendersService, RenderPipeline, RenderWorker, RemotionRenderer, PreviewRenderer, RenderTemplates, BrandKitRepository, CaptionSources, RenderReuse,
        ChunkedRender, ChunkRenderer, RenderChunkRepository, RenderChunkWorker, WorkerPresence, WorkerRepository],
      exports: [RendersService, RenderReuse],
    };
    RendersModule.byRole.set(servesApi, module);
    return module;
  }
}
