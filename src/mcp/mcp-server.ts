import { Injectable } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ApiError } from '../common/errors/api-error';
import { SkillsService } from '../skills/skills.service';
import { SERVICE_VERSION } from '../common/build-info';
import { SystemService } from '../system/system.service';
import type { Workspace } from '../workspaces/workspace.entity';
import { McpToolsService } from './mcp-tools.service';
import { PROMPTS } from './prompts';

export const MCP_SERVER_NAME = 'video-render-service';

const INSTRUCTIONS =
  'Renders video from one declarative JSON request and runs AI tasks (transcribe). Read get_capabilities (or the ' +
  'vrs://capabilities resource) and the vrs://skills/… guides first; check a request with validate_render (free) and ' +
  'look at it with preview_frame before render. Errors carry the API envelope {error: {code, message, details}}; ' +
  'details.errors items have a JSON `pointer` into your request and, when close, a `suggestion`.';

/** One caller's MCP server: the tools, resources and prompts, bound to the API key's workspace. */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly tools: McpToolsService,
    private readonly skills: SkillsService,
    private readonly system: SystemService,
  ) {}

  create(workspace: Workspace, ip: string): Server {
    // The SDK (and its schemas) loads on the first MCP request, not at every start of the service.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { Server } = require('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js');
    const { CallToolRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } =
      require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const server = new Server(
      { name: MCP_SERVER_NAME, title: 'Video rendering and AI task service', version: SERVICE_VERSION },
      { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
    );

    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.tools.list().map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema: inputSchema as never })),
    }));

    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const token = request.params._meta?.progressToken;
      return this.tools.call(request.params.name, request.params.arguments ?? {}, {
        workspace,
        ip,
        signal: extra.signal,
        progress: async (percent, message) => {
          if (token === undefined) return;
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: percent, total: 100, message } });
        },
      });
    });

    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [
        {
          uri: 'vrs://capabilities',
          name: 'capabilities',
          title: 'Capabilities catalog',
          description: 'GET /v1/capabilities: element schemas, catalogs, limits',
          mimeType: 'application/json',
        },
        ...this.skills.list().data.map((skill) => ({
          uri: `vrs://skills/${skill.name}`,
          name: skill.name,
          title: skill.title,
          description: skill.description,
          mimeType: 'text/markdown',
        })),
      ],
    }));

    server.setRequestHandler(ReadResourceRequestSchema, (request) => {
      const uri = request.params.uri;
      if (uri === 'vrs://capabilities') {
        return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(this.system.capabilities()) }] };
      }
      const skill = /^vrs:\/\/skills\/([a-z0-9-]+)$/.exec(uri);
      if (skill) return { contents: [{ uri, mimeType: 'text/markdown', text: this.skills.get(skill[1]) }] };
      throw new ApiError('not_found', `No resource ${uri}; resources/list names them`);
    });

    server.setRequestHandler(ListPromptsRequestSchema, () => ({
      prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args })),
    }));

    server.setRequestHandler(GetPromptRequestSchema, (request) => {
      const prompt = PROMPTS.find((p) => p.name === request.params.name);
      if (!prompt) throw new ApiError('not_found', `No prompt ${request.params.name}; prompts/list names them`);
      const args = request.params.arguments ?? {};
      const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
      if (missing.length) throw new ApiError('invalid_request', `Prompt ${prompt.name} needs ${missing.join(', ')}`);
      return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: prompt.render(args) } }] };
    });

    return server;
  }
}
