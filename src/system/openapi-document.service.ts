import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * The OpenAPI document of the running app, built once by bootstrap.ts from the controllers and
 * DTOs. The MCP tools take their input schemas from it and /llms-full.txt lists its operations,
 * so neither can drift from the REST routes.
 */
@Injectable()
export class OpenApiDocumentService {
  private document: OpenAPIObject | null = null;

  set(document: OpenAPIObject): void {
    this.document = document;
  }

  get(): OpenAPIObject {
    if (!this.document) throw new Error('The OpenAPI document is built by bootstrap.ts before the app serves requests');
    return this.document;
  }
}
