import { Module } from '@nestjs/common';
import { LlmsTxtController } from './llms-txt.controller';
import { SkillsController } from './skills.controller';
import { SkillsService } from './skills.service';

@Module({ controllers: [SkillsController, LlmsTxtController], providers: [SkillsService], exports: [SkillsService] })
export class SkillsModule {}
