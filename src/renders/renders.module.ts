import { DynamicModule, Module } from '@nestjs/common';
import { RemotionRenderer } from './engine/remotion-renderer';
import { RenderPipeline } from './render-pipeline.service';
import { RenderWorker } from './render-worker.service';
import { RendersController } from './renders.controller';
import { RendersService } from './renders.service';

/** Routes only where the REST API is served; the queue and worker everywhere (the worker idles in `api`). */
@Module({})
export class RendersModule {
  static forRole(servesApi: boolean): DynamicModule {
    return {
      module: RendersModule,
      controllers: servesApi ? [RendersController] : [],
      providers: [RendersService, RenderPipeline, RenderWorker, RemotionRenderer],
      exports: [RendersService],
    };
  }
}
