import type { MediaInfo } from '../../../composition/src/schema';
import { runFfprobe } from './media-runner';

export interface ProbeResult extends MediaInfo {
  format: string | null;
  video_codec: string | null;
  audio_codec: string | null;
}

/** Reads a local media file's duration, size and codecs with ffprobe; null when it cannot be decoded. */
export async function probeMedia(file: string): Promise<ProbeResult | null> {
  try {
    const { stdout } = await runFfprobe(['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
      timeoutMs: 30_000,
      stdout: 'buffer',
      stdoutLimitBytes: 8 * 1024 * 1024,
    });
    const data = JSON.parse(stdout.toString('utf8')) as {
      format?: { duration?: string; format_name?: string };
      streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number; duration?: string; disposition?: { attached_pic?: number } }[];
    };
    const streams = data.streams ?? [];
    const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
    const audio = streams.find((s) => s.codec_type === 'audio');
    if (!video && !audio) return null;
    const duration = Number(data.format?.duration ?? video?.duration ?? audio?.duration);
    return {
      duration: Number.isFinite(duration) && duration > 0 ? duration : undefined,
      width: video?.width,
      height: video?.height,
      has_video: Boolean(video),
      has_audio: Boolean(audio),
      format: data.format?.format_name ?? null,
      video_codec: video?.codec_name ?? null,
      audio_codec: audio?.codec_name ?? null,
    };
  } catch {
    return null;
  }
}
