import { Injectable } from '@nestjs/common';
import { brandVariables, substituteVariables, type Placeholder, type Variables, type Violation } from '../../composition/src/schema';
import { BrandKitRepository } from '../brand-kits/brand-kit.repository';
import type { BrandFontFile } from '../brand-kits/brand-kit.entity';
import { ApiError } from '../common/errors/api-error';
import { Workspace } from '../workspaces/workspace.entity';

export interface TemplateOptions {
  /**
   * Values of a project render (project defaults overlaid with the render's own). When given,
   * every placeholder must get a value; without it only `brand.…` placeholders are filled (a
   * plain render's other `{{…}}` text stays as written).
   */
  variables?: Variables;
  /** Where the template sits in what the caller sent (`/render_request` for a project). */
  pointerPrefix?: string;
}

/**
 * Fills a render request's placeholders before it is validated: project variables and, when the
 * request names `brand_kit_id`, the brand kit's values (and its font files, added to `fonts`). A placeholder left without a value is a
 * 422 naming it and where it is.
 */
@Injectable()
export class RenderTemplatesService {
  constructor(private readonly brandKits: BrandKitRepository) {}

  async fill(workspace: Workspace, body: unknown, options: TemplateOptions = {}): Promise<{ body: unknown; notes: Violation[] }> {
    const prefix = options.pointerPrefix ?? '';
    const brand = await this.brandValues(workspace, body, prefix);
    if (!options.variables && !brand) return { body, notes: [] };
    const values = { ...(options.variables ?? {}), ...(brand?.variables ?? {}) };
    const filled = substituteVariables(body, values, options.variables ? {} : { only: (name) => name.startsWith('brand.') });
    if (!filled.ok) throw missingVariables(filled.missing, prefix, Boolean(options.variables));
    return { body: withBrandFontFiles(filled.value, brand?.files ?? []), notes: brand ? fontNotes(body, brand.fallbacks, prefix) : [] };
  }

  private async brandValues(workspace: Workspace, body: unknown, prefix: string) {
    const id = (body as { brand_kit_id?: unknown } | null)?.brand_kit_id;
    // A malformed id is left to the schema, which explains it.
    if (typeof id !== 'string' || !/^bk_[A-Za-z0-9]{1,64}$/.test(id)) return undefined;
    const kit = await this.brandKits.findInWorkspace(workspace.id, id);
    const pointer = `${prefix}/brand_kit_id`;
    if (!kit) {
      throw ApiError.validation([{ type: 'value_error', loc: ['body', 'brand_kit_id'], msg: `Brand kit ${id} not found in this workspace`, pointer }]);
    }
    if (kit.status !== 'ready') {
      throw ApiError.validation([
        { type: 'value_error', loc: ['body', 'brand_kit_id'], msg: `Brand kit ${id} is ${kit.status}, not ready; wait for brand_kit.ready`, pointer },
      ]);
    }
    return { ...brandVariables({ palette: kit.palette, fonts: kit.fonts, logo_url: kit.logoUrl, corner_feel: kit.cornerFeel }), files: kit.fonts.files ?? [] };
  }
}

/**
 * The kit's font files registered in the request's `fonts` (after the request's own, each file
 * once), so the families `{{brand.fonts.…}}` gives draw with them. A `fonts` that is not a list is
 * left for the schema to refuse.
 */
function withBrandFontFiles(body: unknown, files: BrandFontFile[]): unknown {
  if (files.length === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const own = (body as { fonts?: unknown }).fonts;
  if (own !== undefined && own !== null && !Array.isArray(own)) return body;
  const fonts = [...((own as { source_url?: unknown; family?: unknown }[] | null | undefined) ?? [])];
  for (const file of files) {
    if (!fonts.some((font) => font?.source_url === file.source_url && font?.family === file.family)) fonts.push({ ...file });
  }
  return { ...body, fonts };
}

function missingVariables(missing: Placeholder[], prefix: string, isProject: boolean): ApiError {
  return ApiError.validation(
    missing.map(({ name, pointer }) => ({
      type: 'missing',
      loc: ['body', ...pointer.split('/').slice(1)],
      msg: name.startsWith('brand.')
        ? `{{${name}}} has no value: the brand kit did not extract it confidently (GET /v1/brand-kits/{id} shows what it has)`
        : isProject
          ? `Variable {{${name}}} has no value: give it in "variables" of the render or as a project default`
          : `Variable {{${name}}} has no value`,
      pointer: prefix + pointer,
    })),
  );
}

/** An `info` finding per brand font swapped for the nearest shipped family, where the template uses it. */
function fontNotes(body: unknown, fallbacks: ReturnType<typeof brandVariables>['fallbacks'], prefix: string): Violation[] {
  return fallbacks.flatMap(({ field, requested, used }) => {
    const probe = substituteVariables(body, {}, { only: (name) => name === `brand.fonts.${field}` });
    if (probe.ok) return [];
    return [
      {
        code: 'BRAND_FONT_FALLBACK',
        severity: 'info' as const,
        message: `The brand kit's ${field} font "${requested}" is neither shipped nor a Google Fonts family; "${used}", the nearest shipped family, is used instead`,
        pointer: prefix + probe.missing[0].pointer,
        element_ids: [],
      },
    ];
  });
}
