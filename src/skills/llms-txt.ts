import * as path from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { PROJECT_ROOT } from '../config/paths';
import type { SkillSummary } from './skills.service';

/** Where `npm run build` (scripts/write-llms-txt.js) writes llms.txt and llms-full.txt. */
export const LLMS_DIR = path.join(PROJECT_ROOT, 'dist', 'llms');

/** Stands for the deployment's public URL in the built files; the service replaces it when serving. */
export const LLMS_BASE_URL_TOKEN = '@@VRS_PUBLIC_BASE_URL@@';

type Schema = Record<string, unknown>;

interface Operation {
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

const SUMMARY =
  'A self-hostable service that turns one declarative JSON render request (canvas, timed elements: video, audio, text, ' +
  'image, shape, waveform; transitions, motions, effects, captions) into a video or image, and runs AI tasks ' +
  '(transcribe). Jobs are asynchronous: submit, then poll, stream events or receive webhooks. Every call but the ' +
  'discovery ones needs `Authorization: Bearer <API_KEY>`; errors are `{error: {code, message, details}}`, and ' +
  'validation items carry a JSON `pointer` and, when close, a `suggestion`. Agents can use the MCP server at `/mcp` ' +
  'or the `vrs` command-line tool instead of raw HTTP.';

/** `/llms.txt`: the llms.txt convention (title, summary, then links with one-line descriptions). */
export function llmsTxt(baseUrl: string, guides: SkillSummary[]): string {
  return [
    '# Video rendering and AI task service',
    '',
    `> ${SUMMARY}`,
    '',
    `Base URL: ${baseUrl}. Start without a key at ${baseUrl}/v1/capabilities; sign up with POST /v1/signup.`,
    '',
    '## Guides',
    '',
    ...guides.map((g) => `- [${g.title}](${baseUrl}${g.path}): ${g.description}`),
    '',
    '## API',
    '',
    `- [Capabilities](${baseUrl}/v1/capabilities): the request's JSON Schema, every element's schema, catalogs, limits (no key)`,
    `- [OpenAPI document](${baseUrl}/v1/openapi.json): every operation, parameter and body schema`,
    `- [Full text](${baseUrl}/llms-full.txt): all guides and a compact list of every operation, in one file (no key)`,
    '',
    '## Agents and terminals',
    '',
    `- [MCP server](${baseUrl}/mcp): Streamable HTTP, the same API key as Bearer; tools validate_render, preview_frame, render, get_job, …`,
    '- `npx vrs --help`: the command-line tool of this repository (render, preview, status, upload, transcribe, projects, mcp over stdio)',
    '',
  ].join('\n');
}

/** `/llms-full.txt`: every guide in full, then every operation of the OpenAPI document, compactly. */
export function llmsFullTxt(baseUrl: string, guides: { name: string; markdown: string }[], doc: OpenAPIObject): string {
  const parts = [
    '# Video rendering and AI task service',
    '',
    `> ${SUMMARY}`,
    '',
    `Base URL: ${baseUrl}. This file joins the guides (also at /v1/skills/{name}) and the operations of ${baseUrl}/v1/openapi.json.`,
    '',
  ];
  for (const guide of guides) {
    parts.push(`<!-- guide: ${guide.name} -->`, guide.markdown.trim().replace(/^# /, '# Guide: '), '');
  }
  parts.push('# API operations', '');
  parts.push('Auth: `Authorization: Bearer <API_KEY>` unless marked (no key). Bodies are JSON with snake_case fields; unknown fields are refused.', '');
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, value] of Object.entries(item as Record<string, Operation>)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      parts.push(...operationLines(method, path, value, doc));
    }
  }
  return parts.join('\n') + '\n';
}

function operationLines(method: string, path: string, op: Operation, doc: OpenAPIObject): string[] {
  const lines = [`## ${method.toUpperCase()} ${path}${requiresKey(op) ? '' : ' (no key)'}`, '', op.summary ?? ''];
  const params = (op.parameters ?? []).filter((p) => p.in !== 'header' || p.name.toLowerCase() === 'idempotency-key');
  if (params.length) {
    lines.push('', 'Parameters:');
    for (const p of params) lines.push(`- \`${p.name}\` (${p.in}${p.required ? ', required' : ''}, ${typeOf(p.schema ?? {}, doc)})${p.description ? `: ${p.description}` : ''}`);
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body) {
    const resolved = resolve(body, doc);
    if (resolved.title === undefined && Object.keys((resolved.properties as object) ?? {}).length > 25) {
      lines.push('', 'Body: the render request; its JSON Schema is `request_schema` of GET /v1/capabilities.');
    } else {
      lines.push('', 'Body fields:');
      const required = (resolved.required as string[] | undefined) ?? [];
      for (const [name, schema] of Object.entries((resolved.properties as Record<string, Schema>) ?? {})) {
        const described = resolve(schema, doc);
        lines.push(`- \`${name}\` (${typeOf(described, doc)}${required.includes(name) ? ', required' : ''})${described.description ? `: ${String(described.description)}` : ''}`);
      }
    }
  }
  lines.push('');
  return lines;
}

/** Swagger marks the routes with a bearer requirement; the public ones carry none. */
function requiresKey(op: Operation): boolean {
  return Array.isArray(op.security) && op.security.length > 0;
}

function resolve(schema: Schema, doc: OpenAPIObject): Schema {
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return (doc.components?.schemas?.[ref.slice('#/components/schemas/'.length)] as Schema | undefined) ?? {};
  }
  return schema;
}

function typeOf(schema: Schema, doc: OpenAPIObject): string {
  const resolved = resolve(schema, doc);
  if (Array.isArray(resolved.enum)) return `one of ${resolved.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (resolved.type === 'array') return `array of ${typeOf((resolved.items as Schema) ?? {}, doc)}`;
  if (typeof resolved.type === 'string') return resolved.type;
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
  return 'any';
}
