import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { AuthenticatedRequest } from '../common/auth/decorators';
import type { Workspace } from '../workspaces/workspace.entity';
import { McpServerFactory } from './mcp-server';

/**
 * `/mcp`: the MCP Streamable HTTP transport. The global guards have already checked the API key
 * (401 in the envelope otherwise) and set the caller's workspace. Stateless: every request gets
 * its own server and transport bound to that workspace, so any API process answers any request.
 * A tool's progress notifications travel on its own POST's event stream.
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(private readonly servers: McpServerFactory) {}

  @Post()
  post(@Req() req: Request, @Res() res: Response) {
    return this.handle(req, res);
  }

  @Get()
  get(@Req() req: Request, @Res() res: Response) {
    return this.handle(req, res);
  }

  @Delete()
  remove(@Req() req: Request, @Res() res: Response) {
    return this.handle(req, res);
  }

  private async handle(req: Request, res: Response): Promise<void> {
    const workspace = (req as AuthenticatedRequest).workspace as Workspace;
    const server = this.servers.create(workspace, req.ip ?? req.socket.remoteAddress ?? 'unknown');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first MCP request, as the server is
    const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.method === 'POST' ? req.body : undefined);
  }
}
