import { Module } from '@nestjs/common';
import { DatabaseHealthRepository } from '../infra/database/database-health.repository';
import { OpenApiDocument } from './openapi-document';
import { SystemController } from './system.controller';
import { SystemService } from './system.service';

@Module({ controllers: [SystemController], providers: [SystemService, OpenApiDocument, DatabaseHealthRepository], exports: [SystemService, OpenApiDocument] })
export class SystemModule {}
