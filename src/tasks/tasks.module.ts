import { DynamicModule, Module } from '@nestjs/common';
import { modulePerRole } from '../common/module-per-role';
import { AssetsModule } from '../assets/assets.module';
import { JobsModule } from '../jobs/jobs.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Storage } from '../infra/storage/storage';
import { TasksController } from './tasks.controller';
import { TasksService } from './tasks.service';
import type * as GoogleSpeechEngineModule from './transcribe/engines/google-speech.engine';
import { PocketsphinxEngine } from './transcribe/engines/pocketsphinx.engine';
import { SpeechEngine } from './transcribe/engines/speech-engine';
import { TranscriptCacheService } from './transcribe/transcript-cache.service';
import { TranscriptCacheRepository } from './transcribe/transcript-cache.repository';
import { TranscribeWorker } from './transcribe/transcribe.worker';
import { TranscriptionService } from './transcribe/transcription.service';

/** The engine `TRANSCRIBE_ENGINE` names. Google's client finds its credentials (ADC) on first use. */
function speechEngineFor(config: AppConfig, storage: Storage): SpeechEngine {
  switch (config.transcribe.engine) {
    case 'google': {
      // Google's client (gRPC, protobufs) loads only where it is configured: it is most of a start's module loading.
      /* eslint-disable @typescript-eslint/no-require-imports */
      const { v1 } = require('@google-cloud/speech') as typeof import('@google-cloud/speech');
      const { GoogleSpeechEngine } = require('./transcribe/engines/google-speech.engine') as typeof GoogleSpeechEngineModule;
      /* eslint-enable @typescript-eslint/no-require-imports */
      return new GoogleSpeechEngine(new v1.SpeechClient(), storage);
    }
    case 'pocketsphinx':
      return new PocketsphinxEngine({ grammarFile: config.transcribe.pocketsphinxGrammar });
  }
}

/**
 * Routes only where the REST API is served; the queue and worker everywhere (the worker idles in
 * `api`). Exports the transcript cache renders use for speech in their sources.
 */
@Module({})
export class TasksModule {
  static forRole(servesApi: boolean): DynamicModule {
    return modulePerRole(TasksModule, servesApi, () => ({
      imports: [JobsModule, AssetsModule.forRole(servesApi), WebhooksModule.forRole(servesApi)],
      controllers: servesApi ? [TasksController] : [],
      providers: [
        TasksService,
        TranscriptionService,
        TranscribeWorker,
        TranscriptCacheService,
        TranscriptCacheRepository,
        { provide: SpeechEngine, inject: [APP_CONFIG, Storage], useFactory: speechEngineFor },
      ],
      exports: [TranscriptCacheService, TasksService],
    }));
  }
}
