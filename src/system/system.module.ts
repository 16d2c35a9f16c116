import { Module } from '@nestjs/common';
import { OpenApiDocument } from './openapi-document';
import { SystemController } from './system.controller';
import { SystemService } from './system.service';

@Module({ controllers: [SystemController], providers: [SystemService, OpenApiDocument], exports: [SystemService, OpenApiDocument] })
export class SystemModule {}
