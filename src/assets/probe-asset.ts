import { readFile, stat } from 'node:fs/promises';
import { readFontFile } from '../fonts/font-file';
import { FONT_FILE_MAX_BYTES } from '../fonts/font-files';
import { probeMedia } from '../infra/media/probe';
import type { AssetKind } from './asset.entity';

export type AssetProbe =
  | { readable: true; duration: number | null; width: number | null; height: number | null; videoCodec: string | null; audioCodec: string | null }
  | { readable: false; problem: string };

/**
 * ffprobe's reading of a stored file as an asset of `kind`: video needs a picture stream and a
 * duration, audio a sound stream and a duration, an image a picture (its duration, if any, is not
 * an image's).
 */
export async function probeAsset(file: string, kind: Exclude<AssetKind, 'font'>): Promise<AssetProbe> {
  const probed = await probeMedia(file);
  if (!probed) return { readable: false, problem: 'ffprobe found no audio or video stream it can decode' };
  if ((kind === 'video' || kind === 'image') && !probed.has_video) {
    return { readable: false, problem: `ffprobe found no picture in this ${kind} (streams: ${probed.audio_codec ?? 'none'})` };
  }
  if (kind === 'audio' && !probed.has_audio) return { readable: false, problem: 'ffprobe found no sound stream in this audio' };
  if (kind !== 'image' && !probed.duration) return { readable: false, problem: `ffprobe could not tell how long this ${kind} lasts` };
  return {
    readable: true,
    duration: kind === 'image' ? null : (probed.duration ?? null),
    width: probed.width ?? null,
    height: probed.height ?? null,
    videoCodec: probed.video_codec,
    audioCodec: probed.audio_codec,
  };
}

export type FontProbe = { readable: true; family: string | null } | { readable: false; code: 'invalid_source' | 'source_too_large'; problem: string };

/**
 * A font upload read as the request's `fonts` are read (src/fonts/font-file.ts: header, table
 * directory, `name` table), so a renamed picture is refused when it lands, not when it is drawn.
 */
export async function probeFontAsset(file: string): Promise<FontProbe> {
  const size = (await stat(file)).size;
  if (size > FONT_FILE_MAX_BYTES) return { readable: false, code: 'source_too_large', problem: `The font file has ${size} bytes, more than ${FONT_FILE_MAX_BYTES / 1024 / 1024} MB` };
  try {
    return { readable: true, family: readFontFile(await readFile(file)).family };
  } catch (error) {
    return { readable: false, code: 'invalid_source', problem: `The file is not a font: ${(error as Error).message}` };
  }
}
