import { DynamicModule, Module } from '@nestjs/common';
import { AbandonedAssets } from './abandoned-assets';
import { AssetProbeWorker } from './asset-probe.worker';
import { AssetUrls } from './asset-urls';
import { AssetsController } from './assets.controller';
import { AssetsService } from './assets.service';
import { ExternalCopies } from './external-copies.service';
import { IngestWorker } from './ingest.worker';
import { MediaIntake } from './media-intake.service';

/**
 * Assets and media intake. Global so renders (submit checks, the pipeline's inputs) and uploads
 * reach MediaIntake and AssetsService; routes only where the REST API is served, the probe and
 * ingest queues everywhere (their handlers run only in the worker roles).
 */
@Module({})
export class AssetsModule {
  static forRole(servesApi: boolean): DynamicModule {
    return {
      module: AssetsModule,
      global: true,
      controllers: servesApi ? [AssetsController] : [],
      providers: [AssetUrls, AssetsService, MediaIntake, ExternalCopies, IngestWorker, AssetProbeWorker, AbandonedAssets],
      exports: [AssetUrls, AssetsService, MediaIntake],
    };
  }
}
