import { spawn } from 'node:child_process';

/** How much of a tool's stderr is kept: its tail, where ffmpeg writes the error and its summaries. */
const STDERR_KEEP = 20_000;
/** A run with no limit of its own ends after this long: a stuck decoder must not hold a worker. */
const DEFAULT_TIMEOUT_MS = 30 * 60_000;

export interface MediaRunOptions {
  /** Aborting kills the process; the run then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The process is killed after this long and the run fails with a timeout. */
  timeoutMs?: number;
  /** `buffer`: stdout is collected up to `stdoutLimitBytes` (more is an error); otherwise it is discarded. */
  stdout?: 'ignore' | 'buffer';
  stdoutLimitBytes?: number;
  /** Resolve with a non-zero exit code instead of rejecting (the caller reads stderr to decide). */
  allowFailure?: boolean;
}

export interface MediaRunResult {
  code: number;
  stdout: Buffer;
  /** The last STDERR_KEEP characters. */
  stderr: string;
}

/** A media tool that exited non-zero, timed out or could not start; `stderr` holds its last lines. */
export class MediaRunError extends Error {
  constructor(
    readonly tool: string,
    readonly code: number | null,
    readonly stderr: string,
    reason: string,
  ) {
    super(`${tool} ${reason}${stderr ? `: ${lastLines(stderr)}` : ''}`);
  }
}

/** The last few lines of a tool's stderr, joined: what an error message shows of it. */
export function lastLines(stderr: string, count = 3): string {
  return stderr.trim().split('\n').slice(-count).join(' ');
}

/** A media tool started with startMediaTool: stdin and stdout are the caller's to feed and read. */
export interface MediaProcess {
  /** Writes to the tool's stdin; resolves when it takes more (back-pressure), rejects once the run failed. */
  write(chunk: Buffer): Promise<void>;
  /** Closes stdin: the tool finishes its input. */
  end(): void;
  /** The tool's stdout as it comes (`stdout: 'stream'`); it must be read, or the tool stalls. */
  readonly stdout: AsyncIterable<Buffer>;
  /** Settles when the tool exits, as runMediaTool does (stdout empty unless `buffer`). */
  readonly done: Promise<MediaRunResult>;
  /** Kills the tool; `done` rejects with `error`. */
  kill(error: Error): void;
}

export interface MediaStreamOptions extends Omit<MediaRunOptions, 'stdout'> {
  /** `stream`: the caller reads `stdout`; `buffer` and `ignore` as in runMediaTool. */
  stdout?: 'ignore' | 'buffer' | 'stream';
}

const NO_OUTPUT: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }) };

/**
 * Starts one of the media tools every caller shares (ffmpeg, ffprobe) with stdin open: for a tool
 * fed as it runs (frames, pictures). Stderr captured and bounded, a timeout, cancellation through
 * an AbortSignal, as runMediaTool.
 */
export function startMediaTool(tool: 'ffmpeg' | 'ffprobe', args: string[], options: MediaStreamOptions = {}): MediaProcess {
  return start(tool, args, options, true);
}

/**
 * Runs one of the media tools every caller shares (ffmpeg, ffprobe): no stdin, stderr captured and
 * bounded, a timeout, cancellation through an AbortSignal.
 */
export function runMediaTool(tool: 'ffmpeg' | 'ffprobe', args: string[], options: MediaRunOptions = {}): Promise<MediaRunResult> {
  return start(tool, args, options, false).done;
}

function start(tool: 'ffmpeg' | 'ffprobe', args: string[], options: MediaStreamOptions, withStdin: boolean): MediaProcess {
  const { signal, timeoutMs = DEFAULT_TIMEOUT_MS, stdout = 'ignore', stdoutLimitBytes = 64 * 1024 * 1024, allowFailure = false } = options;
  if (signal?.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted'));
    const done = Promise.reject(reason);
    done.catch(() => undefined);
    return { write: () => Promise.reject(reason), end: () => undefined, stdout: NO_OUTPUT, done, kill: () => undefined };
  }
  const child = spawn(tool, args, { stdio: [withStdin ? 'pipe' : 'ignore', stdout === 'ignore' ? 'ignore' : 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stdoutBytes = 0;
  let stderr = '';
  let failure: Error | null = null;
  let exited = false;
  const stop = (error: Error) => {
    failure ??= error;
    child.kill('SIGKILL');
  };
  const onAbort = () => stop(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason ?? 'aborted')));
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop(new MediaRunError(tool, null, stderr, `did not finish within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  if (stdout === 'buffer') {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > stdoutLimitBytes) stop(new MediaRunError(tool, null, stderr, `wrote more than ${stdoutLimitBytes} bytes`));
      else chunks.push(chunk);
    });
  }
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_KEEP)));
  // The tool closing its stdin early (it failed, or needs no more) is reported by its exit.
  child.stdin?.on('error', () => undefined);
  const done = new Promise<MediaRunResult>((resolve, reject) => {
    const finish = () => {
      exited = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      finish();
      reject(failure ?? new MediaRunError(tool, null, stderr, `could not start (${error.message})`));
    });
    child.on('close', (code) => {
      finish();
      if (failure) return reject(failure);
      const result = { code: code ?? -1, stdout: Buffer.concat(chunks), stderr };
      if (result.code !== 0 && !allowFailure) return reject(new MediaRunError(tool, code, stderr, `failed (exit ${code})`));
      resolve(result);
    });
  });
  // A caller that only streams learns of a failure from write() or the stream; done is its to await.
  done.catch(() => undefined);
  const closed = done.then(
    () => undefined,
    () => undefined,
  );
  return {
    async write(chunk: Buffer): Promise<void> {
      if (failure) throw failure;
      if (exited || !child.stdin) throw new MediaRunError(tool, null, stderr, 'is not taking input');
      if (!child.stdin.write(chunk)) await Promise.race([new Promise((resolve) => child.stdin!.once('drain', resolve)), closed]);
      if (failure) throw failure;
    },
    end: () => child.stdin?.end(),
    stdout: stdout === 'stream' && child.stdout ? (child.stdout as AsyncIterable<Buffer>) : NO_OUTPUT,
    done,
    kill: stop,
  };
}

/** ffmpeg without its banner or stdin. */
export function runFfmpeg(args: string[], options?: MediaRunOptions): Promise<MediaRunResult> {
  return runMediaTool('ffmpeg', ['-hide_banner', '-nostdin', ...args], options);
}

export function runFfprobe(args: string[], options?: MediaRunOptions): Promise<MediaRunResult> {
  return runMediaTool('ffprobe', args, options);
}

/** ffmpeg without its banner, fed on stdin (`-i pipe:0` in `args`). */
export function startFfmpeg(args: string[], options?: MediaStreamOptions): MediaProcess {
  return startMediaTool('ffmpeg', ['-hide_banner', ...args], options);
}
