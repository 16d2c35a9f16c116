import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { SkillsModule } from '../skills/skills.module';
import { SystemModule } from '../system/system.module';
import { McpController } from './mcp.controller';
import { McpServerFactory } from './mcp-server';
import { McpToolsService } from './mcp-tools.service';
import { OriginCheckMiddleware } from './origin-check.middleware';

/** The MCP server at /mcp (API roles). Its tools reach the feature services through ModuleRef. */
@Module({
  imports: [SkillsModule, SystemModule],
  controllers: [McpController],
  providers: [McpToolsService, McpServerFactory],
})
export class McpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(OriginCheckMiddleware).forRoutes(McpController);
  }
}
