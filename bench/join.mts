// `npm run bench:join`: the two ways to join the H.264 chunks of a split render without
// re-encoding, on the same 4 chunks of 60 s of 1080p30 (testsrc2, x264 with the renderer's
// settings, each chunk starting with a keyframe): the service's (each chunk an MP4, ffmpeg's
// concat demuxer copying the streams into one MP4) and Remotion Lambda's `combineChunks` way for
// H.264 (each chunk an MPEG-TS stream, the files read back to back through ffmpeg's `concat:`
// protocol and copied into an MP4). Prints the median wall time of 5 joins each, the output size,
// and whether the joined file has every frame at its own timestamp (frame count and the largest
// distance of a frame's timestamp from n / 30 s).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { printTable } from './bench-service.mts';

const chunkSeconds = 15;
const chunks = 4;
const work = mkdtempSync(path.join(tmpdir(), 'bench-join-'));
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);

const mp4s: string[] = [];
const streams: string[] = [];
for (let index = 0; index < chunks; index++) {
  const mp4 = path.join(work, `chunk-${index}.mp4`);
  // x264 as the renderer sets it (CRF 18, yuv420p, BT.709 TV range, 90 kHz timescale); the preset
  // only changes how long making the fixture takes, not what the join copies.
  ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30', '-frames:v', String(chunkSeconds * 30),
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709',
    '-color_trc', 'bt709', '-color_range', 'tv', '-video_track_timescale', '90000', mp4);
  // A chunk's MP4 starts at 0 (the demuxer moves each after the one before); an MPEG-TS chunk
  // carries its place in the timeline (`compositionStart`), so the bytes can follow each other.
  const ts = path.join(work, `chunk-${index}.ts`);
  ffmpeg('-i', mp4, '-c', 'copy', '-bsf:v', 'h264_mp4toannexb', '-output_ts_offset', String(index * chunkSeconds), '-f', 'mpegts', ts);
  mp4s.push(mp4);
  streams.push(ts);
}

function joinWithConcatDemuxer(output: string): void {
  const list = path.join(work, 'chunks.txt');
  writeFileSync(list, mp4s.map((file) => `file '${file}'\n`).join(''));
  ffmpeg('-f', 'concat', '-safe', '0', '-i', list, '-map', '0:v', '-c', 'copy', output);
}

function joinWithConcatProtocol(output: string): void {
  ffmpeg('-i', `concat:${streams.join('|')}`, '-map', '0:v', '-c', 'copy', output);
}

/** Frame count and the largest distance (ms) of a frame's timestamp from its place n / 30 s. */
function exactness(file: string): { frames: number; worstMs: number } {
  // JSON: a keyframe's side data would add fields to a CSV line.
  const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=best_effort_timestamp_time', '-of', 'json', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const times = (JSON.parse(out) as { frames: { best_effort_timestamp_time: string }[] }).frames.map((frame) => Number(frame.best_effort_timestamp_time));
  const first = times[0];
  return { frames: times.length, worstMs: Math.max(...times.map((time, n) => Math.abs(time - first - n / 30) * 1000)) };
}

const load = loadavg()[0];
const rows: string[][] = [];
for (const [label, join] of [
  ['MP4 chunks, concat demuxer (the service)', joinWithConcatDemuxer],
  ['MPEG-TS chunks, concat protocol (combineChunks for H.264)', joinWithConcatProtocol],
] as const) {
  const output = path.join(work, `joined-${rows.length}.mp4`);
  const seconds: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    join(output);
    seconds.push((performance.now() - started) / 1000);
  }
  seconds.sort((a, b) => a - b);
  const { frames, worstMs } = exactness(output);
  rows.push([label, seconds[2].toFixed(3), (statSync(output).size / 1048576).toFixed(1), `${frames} of ${chunks * chunkSeconds * 30}`, worstMs.toFixed(2)]);
}
rmSync(work, { recursive: true, force: true });
console.log(`${chunks} chunks of ${chunkSeconds} s 1080p30; load average at start: ${load.toFixed(1)} (${new Date().toISOString()})`);
printTable(['join', 'median s (5 runs)', 'output MB', 'frames', 'worst timestamp error ms'], rows);
process.exit(0);
