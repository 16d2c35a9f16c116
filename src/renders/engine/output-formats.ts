import type { Codec, PixelFormat, VideoImageFormat } from '@remotion/renderer';

export type OutputFormat = 'mp4' | 'webm' | 'mov' | 'gif' | 'png' | 'jpg';

export type OutputPlan =
  | {
      kind: 'video';
      extension: string;
      contentType: string;
      codec: Codec;
      imageFormat: VideoImageFormat;
      pixelFormat: PixelFormat;
      proResProfile?: '4444';
      audioCodec: 'aac' | 'opus' | 'pcm-16' | null;
    }
  | { kind: 'still'; extension: string; contentType: string; imageFormat: 'png' | 'jpeg' };

/**
 * How each output format is encoded. H.264 uses `yuv420p` in TV range, which players expect;
 * alpha outputs capture PNG frames so the alpha channel survives into VP9 (yuva420p) or ProRes 4444.
 */
export function planOutput(format: OutputFormat, alpha: boolean): OutputPlan {
  switch (format) {
    case 'mp4':
      return { kind: 'video', extension: 'mp4', contentType: 'video/mp4', codec: 'h264', imageFormat: 'jpeg', pixelFormat: 'yuv420p', audioCodec: 'aac' };
    case 'webm':
      return alpha
        ? { kind: 'video', extension: 'webm', contentType: 'video/webm', codec: 'vp9', imageFormat: 'png', pixelFormat: 'yuva420p', audioCodec: 'opus' }
        : { kind: 'video', extension: 'webm', contentType: 'video/webm', codec: 'vp9', imageFormat: 'jpeg', pixelFormat: 'yuv420p', audioCodec: 'opus' };
    case 'mov':
      return alpha
        ? { kind: 'video', extension: 'mov', contentType: 'video/quicktime', codec: 'prores', proResProfile: '4444', imageFormat: 'png', pixelFormat: 'yuva444p10le', audioCodec: 'pcm-16' }
        : { kind: 'video', extension: 'mov', contentType: 'video/quicktime', codec: 'h264', imageFormat: 'jpeg', pixelFormat: 'yuv420p', audioCodec: 'aac' };
    case 'gif':
      return { kind: 'video', extension: 'gif', contentType: 'image/gif', codec: 'gif', imageFormat: 'png', pixelFormat: 'yuv420p', audioCodec: null };
    case 'png':
      return { kind: 'still', extension: 'png', contentType: 'image/png', imageFormat: 'png' };
    case 'jpg':
      return { kind: 'still', extension: 'jpg', contentType: 'image/jpeg', imageFormat: 'jpeg' };
  }
}
