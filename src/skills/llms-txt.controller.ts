import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../common/auth/decorators';
import { ApiError } from '../common/errors/api-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { LLMS_BASE_URL_TOKEN, LLMS_DIR } from './llms-txt';

/**
 * `/llms.txt` and `/llms-full.txt` (no key): the files `npm run build` wrote from the guides and
 * the OpenAPI document of that build, with this deployment's public URL put in. Read once.
 */
@ApiExcludeController()
@Public()
@Controller()
export class LlmsTxtController {
  private readonly texts = new Map<string, string>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('llms.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  llms(): string {
    return this.built('llms.txt');
  }

  @Get('llms-full.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  llmsFull(): string {
    return this.built('llms-full.txt');
  }

  private built(name: string): string {
    let text = this.texts.get(name);
    if (text === undefined) {
      let raw: string;
      try {
        raw = readFileSync(path.join(LLMS_DIR, name), 'utf8');
      } catch {
        throw new ApiError('unavailable', `${name} is written by \`npm run build\`; this installation has not been built`);
      }
      text = raw.replaceAll(LLMS_BASE_URL_TOKEN, this.config.publicBaseUrl.replace(/\/$/, ''));
      this.texts.set(name, text);
    }
    return text;
  }
}
