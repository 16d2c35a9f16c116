import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../common/auth/decorators';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { OpenApiDocument } from '../system/openapi-document';
import { llmsFullTxt, llmsTxt } from './llms-txt';
import { SkillsService } from './skills.service';

/**
 * `/llms.txt` and `/llms-full.txt` (no key), written once per process from the guides and the
 * OpenAPI document the running app was built with, so they say what this build serves.
 */
@ApiExcludeController()
@Public()
@Controller()
export class LlmsTxtController {
  private index: string | null = null;
  private full: string | null = null;

  constructor(
    private readonly skills: SkillsService,
    private readonly openApi: OpenApiDocument,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('llms.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  llms(): string {
    this.index ??= llmsTxt(this.baseUrl(), this.skills.list().data);
    return this.index;
  }

  @Get('llms-full.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  llmsFull(): string {
    this.full ??= llmsFullTxt(this.baseUrl(), this.skills.all(), this.openApi.get());
    return this.full;
  }

  private baseUrl(): string {
    return this.config.publicBaseUrl.replace(/\/$/, '');
  }
}
