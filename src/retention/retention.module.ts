import { Module } from '@nestjs/common';
import { RetentionRepository } from './retention.repository';
import { RetentionService } from './retention.service';
import { RetentionWorker } from './retention.worker';

/** Deleting expired render outputs and assets (RENDER_RETENTION_DAYS, ASSET_RETENTION_DAYS), in every role. */
@Module({ providers: [RetentionRepository, RetentionService, RetentionWorker], exports: [RetentionService] })
export class RetentionModule {}
