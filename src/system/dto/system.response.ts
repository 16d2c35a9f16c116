import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiInteger, ApiNullable, ApiTimestampOrNull } from '../../common/openapi/fields';

const CHECK = { enum: ['ok', 'unavailable'] } as const;

@ApiSchema({ name: 'Health' })
export class HealthDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

@ApiSchema({ name: 'Readiness' })
export class ReadinessDto {
  @ApiProperty(CHECK)
  status: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'unavailable'] }, example: { database: 'ok', queue: 'ok', storage: 'ok' } })
  checks: Record<string, string>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Only when a check failed and can say why: what is wrong, in words, by check name',
    example: { storage: 'S3 bucket "renders" does not exist at https://s3.example.com: create it, or correct S3_BUCKET' },
  })
  messages?: Record<string, string>;
}

@ApiSchema({ name: 'Version' })
export class VersionDto {
  @ApiProperty({ example: '0.2.0' })
  version: string;

  @ApiProperty({ example: 'v1' })
  api_version: string;

  @ApiNullable('string', { description: 'Git commit of the build' })
  commit: string | null;

  @ApiTimestampOrNull()
  built_at: string | null;
}

@ApiSchema({ name: 'CatalogEntry' })
export class CatalogEntryDto {
  @ApiProperty({ example: 'mp4' })
  name: string;

  @ApiProperty({ description: 'Whether the renderer supports it today' })
  supported: boolean;

  @ApiPropertyOptional()
  description?: string;
}

@ApiSchema({ name: 'RateLimitRule' })
export class RateLimitRuleDto {
  @ApiInteger({ example: 120 })
  limit: number;

  @ApiInteger({ example: 60 })
  window_seconds: number;

  @ApiProperty({ enum: ['ip', 'email', 'workspace'] })
  per: string;
}

const OBJECT = { type: 'object', additionalProperties: true } as const;
const CATALOG = { type: CatalogEntryDto, isArray: true };

/** GET /v1/capabilities: catalogs and JSON Schemas from the composition's one schema, limits as configured. */
@ApiSchema({ name: 'Capabilities' })
@ApiExtraModels(RateLimitRuleDto)
export class CapabilitiesDto {
  @ApiProperty({ example: '0.2.0' })
  version: string;

  @ApiProperty(CATALOG)
  formats: CatalogEntryDto[];

  @ApiProperty(CATALOG)
  effects: CatalogEntryDto[];

  @ApiProperty(CATALOG)
  motions: CatalogEntryDto[];

  @ApiProperty(CATALOG)
  transitions: CatalogEntryDto[];

  @ApiProperty(CATALOG)
  blend_modes: CatalogEntryDto[];

  @ApiProperty(CATALOG)
  easings: CatalogEntryDto[];

  @ApiProperty(CATALOG)
  text_animations: CatalogEntryDto[];

  @ApiProperty({ ...CATALOG, description: 'Shipped font families' })
  fonts: CatalogEntryDto[];

  @ApiProperty({
    ...OBJECT,
    description: 'Text fonts beyond the shipped ones: every Google Fonts family by name (`families`, fetched once from `registry` when first used), the fallbacks by script, the cap on custom font files',
  })
  font_catalogue: Record<string, unknown>;

  @ApiProperty({ ...CATALOG, description: 'Task types and whether each is supported' })
  task_types: CatalogEntryDto[];

  @ApiProperty({ ...OBJECT, description: 'The speech engine in use, its options and the analyses' })
  transcribe: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'object' }, description: 'JSON Schema of each element type, by type' })
  element_schemas: Record<string, unknown>;

  @ApiProperty({ ...OBJECT, description: 'The JSON Schema (draft 2020-12) of the render request (components.schemas.RenderRequest)' })
  request_schema: Record<string, unknown>;

  @ApiProperty({ ...OBJECT, description: 'Canvas, URL, file, list, request, plan and webhook limits, as configured' })
  limits: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/RateLimitRule' }, description: 'Published rate limits by scope' })
  rate_limits: Record<string, RateLimitRuleDto>;

  @ApiProperty({ ...OBJECT, description: 'POST /v1/preview: modes, limits and the preview schema' })
  previews: Record<string, unknown>;

  @ApiProperty({ ...OBJECT, description: 'How an agent creates a workspace and key without a human' })
  onboarding: Record<string, unknown>;
}
