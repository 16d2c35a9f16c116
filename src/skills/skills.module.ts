import { Module } from '@nestjs/common';
import { SystemModule } from '../system/system.module';
import { LlmsTxtController } from './llms-txt.controller';
import { SkillsController } from './skills.controller';
import { SkillsService } from './skills.service';

@Module({ imports: [SystemModule], controllers: [SkillsController, LlmsTxtController], providers: [SkillsService], exports: [SkillsService] })
export class SkillsModule {}
