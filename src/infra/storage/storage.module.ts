import { Global, Logger, Module } from '@nestjs/common';
import * as path from 'node:path';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { FilesController } from './files.controller';
import type * as GcsStorageModule from './gcs-storage';
import { LocalStorage } from './local-storage';
import type * as S3StorageModule from './s3-storage';
import { StaleFilesWorker } from './stale-files.worker';
import { Storage } from './storage';
import { UploadEventsService } from './upload-events.service';
import { loadSigningSecret, UrlSigner } from './url-signer';

export async function createStorage(config: AppConfig): Promise<Storage> {
  const { gcs, s3, signingSecret } = config.storage;
  // The cloud SDKs load only where they are configured: they are a large part of a start's module loading.
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (gcs) {
    const { GcsStorage } = require('./gcs-storage') as typeof GcsStorageModule;
    return new GcsStorage({ bucket: gcs.bucket, apiEndpoint: gcs.apiEndpoint ?? undefined });
  }
  if (s3) {
    const { S3Storage } = require('./s3-storage') as typeof S3StorageModule;
    const storage = new S3Storage(s3);
    // Not fatal (the store may come up later, /v1/ready tells), but said at once in the log.
    void storage.problem().then((problem) => problem && new Logger('Storage').warn(problem));
    return storage;
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
  const secret = await loadSigningSecret(config.dataDir, signingSecret);
  return new LocalStorage(path.join(config.dataDir, 'storage'), new UrlSigner(secret), config.publicBaseUrl);
}

/**
 * `Storage` for every module, in every role (workers download inputs and upload outputs), and the
 * sweep of temporary files crashed processes left on this machine's disk.
 */
@Global()
@Module({
  providers: [{ provide: Storage, inject: [APP_CONFIG], useFactory: createStorage }, UploadEventsService, StaleFilesWorker],
  exports: [Storage, UploadEventsService],
})
export class StorageModule {}

/** The signed `/v1/files/` route of local storage; only where the REST API is served. */
@Module({ controllers: [FilesController] })
export class FilesModule {}
