import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from './config.js';
import { CliError } from './errors.js';

/** The longest a forwarded tool call may run (a render with `wait`); progress resets the clock. */
const CALL_TIMEOUT_MS = 15 * 60_000;

export const UPLOAD_FILE_TOOL = {
  name: 'upload_file',
  title: 'Upload a local file',
  description:
    'Uploads a file from this machine (POST /v1/uploads, then PUT of its bytes) and returns the asset with its `source_url`, to use in render and transcribe requests.',
  inputSchema: {
    type: 'object' as const,
    properties: {
      path: { type: 'string', description: 'Path of the file on this machine' },
      content_type: { type: 'string', description: 'MIME type; guessed from the extension when omitted' },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

/**
 * `vrs mcp`: an MCP server on stdio that forwards every request to the service's `/mcp` over
 * Streamable HTTP with the configured key, so the tools are the service's own; it adds only
 * `upload_file`, which needs this machine's files.
 */
export async function runMcpBridge(settings: Settings, uploadFile: (path: string, contentType?: string) => Promise<Record<string, unknown>>): Promise<void> {
  if (!settings.key) throw new CliError('No API key: run `vrs login` or set VRS_API_KEY', 1);
  const remote = new Client({ name: 'vrs-mcp', version: '0.2.0' });
  await remote.connect(
    new StreamableHTTPClientTransport(new URL(`${settings.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${settings.key}` } } }),
  );
  const info = remote.getServerVersion();
  const local = new Server(
    { name: info?.name ?? 'video-render-service', version: info?.version ?? '0.0.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: remote.getInstructions() },
  );

  local.setRequestHandler(ListToolsRequestSchema, async () => {
    const listed = await remote.listTools();
    return { tools: [...listed.tools, UPLOAD_FILE_TOOL] };
  });

  local.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    if (request.params.name === UPLOAD_FILE_TOOL.name) {
      const args = request.params.arguments ?? {};
      try {
        const asset = await uploadFile(String(args.path), args.content_type === undefined ? undefined : String(args.content_type));
        return { content: [{ type: 'text', text: JSON.stringify(asset) }], structuredContent: asset };
      } catch (error) {
        const envelope: Record<string, unknown> = error instanceof CliError && error.envelope ? { ...error.envelope } : { error: { code: 'invalid_request', message: (error as Error).message } };
        return { content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope, isError: true };
      }
    }
    const token = request.params._meta?.progressToken;
    // Forwarded in order, and all of them before the result: the last one (100 %) must not arrive after it.
    let forwarded: Promise<void> = Promise.resolve();
    let last: { progress: number; total?: number } | null = null;
    const forward = (progress: { progress: number; total?: number; message?: string }) => {
      last = progress;
      forwarded = forwarded.then(() => extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token! } })).catch(() => undefined);
    };
    const result = (await remote.callTool({ name: request.params.name, arguments: request.params.arguments }, undefined, {
      signal: extra.signal,
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: token === undefined ? undefined : forward,
    })) as CallToolResult;
    // The service ends a followed job's progress at its total once the job is final, but that last
    // notification can reach this bridge just after the result (its client then drops it as
    // belonging to no open call; seen under load): it is sent again here, before the result.
    const reported = last as { progress: number; total?: number } | null;
    const status = (result.structuredContent as { status?: unknown } | undefined)?.status;
    const final = status === 'completed' || status === 'failed' || status === 'cancelled';
    if (final && reported?.total !== undefined && reported.progress < reported.total) forward({ progress: reported.total, total: reported.total, message: String(status) });
    await forwarded;
    return result;
  });

  local.setRequestHandler(ListResourcesRequestSchema, (request) => remote.listResources(request.params));
  local.setRequestHandler(ReadResourceRequestSchema, (request) => remote.readResource(request.params));
  local.setRequestHandler(ListPromptsRequestSchema, (request) => remote.listPrompts(request.params));
  local.setRequestHandler(GetPromptRequestSchema, (request) => remote.getPrompt(request.params));

  const stdio = new StdioServerTransport();
  await local.connect(stdio);
  await new Promise<void>((resolve) => {
    local.onclose = resolve;
    process.stdin.on('end', resolve);
  });
  await remote.close();
}
