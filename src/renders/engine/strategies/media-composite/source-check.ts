import { runFfprobe } from '../../../../infra/media/media-runner';

/**
 * Why ffmpeg would not convert a source's pictures to RGB as the page does (libyuvBt709); null
 * when it would: 8-bit 4:2:0 in TV range, BT.709 or untagged (the page treats untagged as BT.709),
 * not rotated.
 */
export async function sourceProblem(file: string, signal: AbortSignal): Promise<string | null> {
  let stream: Record<string, unknown> | undefined;
  try {
    const { stdout } = await runFfprobe(
      ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=pix_fmt,color_space,color_range,color_transfer,color_primaries:stream_tags=rotate:stream_side_data=rotation', '-of', 'json', file],
      { signal, timeoutMs: 60_000, stdout: 'buffer' },
    );
    stream = (JSON.parse(stdout.toString('utf8')) as { streams?: Record<string, unknown>[] }).streams?.[0];
  } catch (error) {
    signal.throwIfAborted();
    // The browser path reports an undecodable source in its own words.
    return `the source could not be probed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
  if (!stream) return 'no picture stream';
  if (stream.pix_fmt !== 'yuv420p') return `pixel format ${String(stream.pix_fmt)} (only 8-bit 4:2:0 in TV range is converted as the browser does)`;
  const untaggedOr = (field: string, allowed: string) => stream[field] === undefined || stream[field] === 'unknown' || stream[field] === allowed;
  if (!untaggedOr('color_range', 'tv')) return `colour range ${String(stream.color_range)}`;
  for (const field of ['color_space', 'color_transfer', 'color_primaries']) {
    if (!untaggedOr(field, 'bt709')) return `${field.replace('_', ' ')} ${String(stream[field])} (only BT.709 or untagged)`;
  }
  const rotated = (stream.tags as Record<string, string> | undefined)?.rotate ?? (stream.side_data_list as { rotation?: number }[] | undefined)?.find((data) => data.rotation)?.rotation;
  if (rotated && Number(rotated) % 360 !== 0) return 'the source is rotated';
  return null;
}
