import { Injectable } from '@nestjs/common';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { catalogueFamiliesOf, catalogueFamily, type RenderRequest } from '../../composition/src/schema';
import { Storage } from '../infra/storage/storage';
import { FontCatalogueService } from './font-catalogue.service';

/** Largest custom font file accepted (the request's `fonts`). */
export const FONT_FILE_MAX_BYTES = 20 * 1024 * 1024;

/** A face a render loads beyond the bundled fonts, as a local file of its work folder. */
export interface LocalFontFace {
  family: string;
  weight: string;
  style: string;
  unicode_range: string;
  file: string;
}

/**
 * The font files one render needs: for each catalogue family its text uses, the faces of the
 * weights and styles drawn (the nearest the family has), from storage — fetched from the
 * registry first only when the family was never used before.
 */
@Injectable()
export class RenderFontsService {
  constructor(
    private readonly catalogue: FontCatalogueService,
    private readonly storage: Storage,
  ) {}

  async localFaces(request: RenderRequest, workDir: string, signal?: AbortSignal): Promise<LocalFontFace[]> {
    const faces: LocalFontFace[] = [];
    const dir = path.join(workDir, 'fonts');
    for (const family of catalogueFamiliesOf(request)) {
      const entry = catalogueFamily(family)!;
      const wanted = new Set<string>();
      for (const element of request.elements ?? []) {
        if (element.type !== 'text' || element.font_family !== family) continue;
        const weight = element.font_weight ?? 400;
        const nearest = [...entry.weights].sort((a, b) => Math.abs(a - weight) - Math.abs(b - weight) || b - a)[0];
        // A family without italics is slanted by the browser from its upright face.
        wanted.add(`${nearest} ${element.font_style === 'italic' && entry.italic ? 'italic' : 'normal'}`);
      }
      const manifest = await this.catalogue.ensure(family, signal);
      await mkdir(dir, { recursive: true });
      for (const face of manifest.faces.filter((candidate) => wanted.has(`${candidate.weight} ${candidate.style}`))) {
        const file = path.join(dir, path.basename(face.key));
        await this.storage.downloadTo(face.key, file);
        faces.push({ family: manifest.family, weight: face.weight, style: face.style, unicode_range: face.unicode_range, file });
      }
    }
    return faces;
  }
}

/**
 * The request's `fonts` as faces, each at its input's local URL: `family` as given, else the name
 * inside the file (read when it was fetched).
 */
export function requestFontFaces(request: RenderRequest, inputs: { url: string; fontFamily?: string | null }[], urls: string[]) {
  return (request.fonts ?? []).flatMap((font) => {
    const index = inputs.findIndex((input) => input.url === font.source_url);
    const family = font.family ?? inputs[index]?.fontFamily;
    if (index === -1 || !family) return [];
    return [{ family, weight: String(font.weight ?? 400), style: font.style ?? 'normal', url: urls[index] }];
  });
}
