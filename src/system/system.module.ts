import { Module } from '@nestjs/common';
import { DatabaseHealthRepository } from '../infra/database/database-health.repository';
import { OpenApiDocumentService } from './openapi-document.service';
import { SystemController } from './system.controller';
import { SystemService } from './system.service';

@Module({ controllers: [SystemController], providers: [SystemService, OpenApiDocumentService, DatabaseHealthRepository], exports: [SystemService, OpenApiDocumentService] })
export class SystemModule {}
