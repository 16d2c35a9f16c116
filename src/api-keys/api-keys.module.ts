import { Module } from '@nestjs/common';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';

@Module({ controllers: [ApiKeysController], providers: [ApiKeysService, ApiKeyRepository, TransactionRepository], exports: [ApiKeysService] })
export class ApiKeysModule {}
