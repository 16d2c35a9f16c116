import { MediaRunError, runFfmpeg, runFfprobe, startFfmpeg } from './media-runner';

/** 0.1 s of a 440 Hz tone, decoded to 16 kHz mono 16-bit samples on stdout. */
const TONE_TO_STDOUT = ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.1', '-ac', '1', '-ar', '16000', '-f', 's16le', '-'];
/** A tone played at its own pace (`-re`) for 30 s: a run that is still going when it is stopped. */
const SLOW_RUN = ['-v', 'error', '-re', '-f', 'lavfi', '-i', 'sine=duration=30', '-f', 'null', '-'];

describe('the media runner', () => {
  it('collects stdout when asked', async () => {
    const result = await runFfmpeg(TONE_TO_STDOUT, { stdout: 'buffer' });
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBe(1600 * 2);
  });

  it('reads ffprobe output', async () => {
    const { stdout } = await runFfprobe(['-v', 'error', '-f', 'lavfi', '-i', 'sine=duration=0.5', '-show_entries', 'stream=codec_type', '-of', 'json'], {
      stdout: 'buffer',
    });
    expect(JSON.parse(stdout.toString('utf8')).streams[0].codec_type).toBe('audio');
  });

  it('rejects a failed run with the tool, the exit code and the last lines of stderr', async () => {
    const failure = await runFfmpeg(['-v', 'error', '-i', '/nonexistent/input.mp4', '-f', 'null', '-']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaRunError);
    expect((failure as MediaRunError).tool).toBe('ffmpeg');
    expect((failure as MediaRunError).code).not.toBe(0);
    expect((failure as MediaRunError).message).toContain('/nonexistent/input.mp4');
  });

  it('hands back a failed run with allowFailure, for callers that read stderr', async () => {
    const result = await runFfmpeg(['-v', 'error', '-i', '/nonexistent/input.mp4', '-f', 'null', '-'], { allowFailure: true });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('No such file');
  });

  it('keeps only the tail of a long stderr', async () => {
    const result = await runFfmpeg(['-loglevel', 'debug', '-f', 'lavfi', '-i', 'sine=duration=2', '-f', 'null', '-']);
    expect(result.stderr.length).toBeGreaterThan(0);
    expect(result.stderr.length).toBeLessThanOrEqual(20_000);
  });

  it('kills a run whose stdout exceeds its limit', async () => {
    const failure = await runFfmpeg(TONE_TO_STDOUT, { stdout: 'buffer', stdoutLimitBytes: 1000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaRunError);
    expect((failure as Error).message).toContain('more than 1000 bytes');
  });

  it('kills a run that outlives its timeout', async () => {
    const failure = await runFfmpeg(SLOW_RUN, { timeoutMs: 300 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaRunError);
    expect((failure as Error).message).toContain('did not finish');
  });

  it('kills a run when its signal aborts, rejecting with the reason', async () => {
    const controller = new AbortController();
    const run = runFfmpeg(SLOW_RUN, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('cancelled by the user')), 200);
    await expect(run).rejects.toThrow('cancelled by the user');
  });

  it('does not start when the signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already cancelled'));
    await expect(runFfmpeg(TONE_TO_STDOUT, { signal: controller.signal })).rejects.toThrow('already cancelled');
  });

  it('streams: frames written to stdin come back on stdout as the tool runs', async () => {
    // 4×2 RGBA frames through ffmpeg unchanged (rawvideo in, rawvideo out).
    const tool = startFfmpeg(['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', '4x2', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1'], { stdout: 'stream' });
    const frames = [Buffer.alloc(32, 7), Buffer.alloc(32, 200)];
    const writing = (async () => {
      for (const frame of frames) await tool.write(frame);
      tool.end();
    })();
    const out: Buffer[] = [];
    for await (const chunk of tool.stdout) out.push(chunk);
    await writing;
    expect((await tool.done).code).toBe(0);
    expect(Buffer.concat(out)).toEqual(Buffer.concat(frames));
  });

  it('rejects writes and the run once a streamed tool fails, with its stderr', async () => {
    const tool = startFfmpeg(['-v', 'error', '-f', 'image2pipe', '-c:v', 'png', '-i', 'pipe:0', '-f', 'rawvideo', 'pipe:1'], { stdout: 'stream' });
    const reading = (async () => {
      for await (const chunk of tool.stdout) void chunk;
    })();
    await tool.write(Buffer.from('not a png at all')).catch(() => undefined);
    tool.end();
    await reading;
    const failure = await tool.done.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaRunError);
    await expect(tool.write(Buffer.alloc(1))).rejects.toThrow();
  });

  it('kills a streamed tool when its signal aborts', async () => {
    const controller = new AbortController();
    const tool = startFfmpeg(['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'gray', '-s', '2x2', '-i', 'pipe:0', '-f', 'null', '-'], { signal: controller.signal });
    await tool.write(Buffer.alloc(4));
    controller.abort(new Error('render cancelled'));
    await expect(tool.done).rejects.toThrow('render cancelled');
    await expect(tool.write(Buffer.alloc(4))).rejects.toThrow('render cancelled');
  });
});
