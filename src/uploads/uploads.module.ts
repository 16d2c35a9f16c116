import { Module } from '@nestjs/common';
import { AssetsModule } from '../assets/assets.module';
import { UploadsController } from './uploads.controller';
import { UploadsService } from './uploads.service';
import { TransactionRepository } from '../infra/database/transaction.repository';

/** `POST /v1/uploads` (REST API only); the asset it reserves lives in AssetsModule. */
@Module({ imports: [AssetsModule.forRole(true)], controllers: [UploadsController], providers: [UploadsService, TransactionRepository] })
export class UploadsModule {}
