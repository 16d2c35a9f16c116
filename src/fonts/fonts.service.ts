import { Injectable } from '@nestjs/common';
import { distance } from 'fastest-levenshtein';
import { catalogueFamily, catalogueFamilyNames, FONT_FAMILIES, isShippedFamily } from '../../composition/src/schema';
import { ApiError } from '../common/errors/api-error';
import { Storage } from '../infra/storage/storage';
import type { FontFamilyDto } from './dto/font-family.response';
import { FontCatalogueService, FontFetchError } from './font-catalogue.service';

/** How long the face URLs of GET /v1/fonts/{family} stay valid. */
const FACE_URL_TTL_SECONDS = 24 * 3600;

@Injectable()
export class FontsService {
  constructor(
    private readonly catalogue: FontCatalogueService,
    private readonly storage: Storage,
  ) {}

  /** The family's faces with signed URLs, fetching a catalogue family first; unknown: the closest name. */
  async family(family: string): Promise<FontFamilyDto | { suggestion: string | undefined }> {
    if (isShippedFamily(family)) return { family, source: 'shipped', faces: [] };
    if (!catalogueFamily(family)) return { suggestion: closest(family) };
    let manifest;
    try {
      manifest = await this.catalogue.ensure(family);
    } catch (error) {
      if (error instanceof FontFetchError) throw new ApiError('source_not_found', error.message);
      throw error;
    }
    const faces = await Promise.all(
      manifest.faces.map(async (face) => ({
        family: manifest.family,
        weight: face.weight,
        style: face.style,
        unicode_range: face.unicode_range,
        url: (await this.storage.signedReadUrl(face.key, FACE_URL_TTL_SECONDS, { contentType: 'font/woff2' })).url,
      })),
    );
    return { family: manifest.family, source: 'catalogue', faces };
  }
}

function closest(input: string): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of [...FONT_FAMILIES, ...catalogueFamilyNames()]) {
    const d = distance(needle, name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}
