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
export async function probeAsset(file: string, kind: AssetKind): Promise<AssetProbe> {
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
