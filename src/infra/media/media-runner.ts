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

/**
 * Runs one of the media tools every caller shares (ffmpeg, ffprobe): no stdin, stderr captured and
 * bounded, a timeout, cancellation through an AbortSignal.
 */
export function runMediaTool(tool: 'ffmpeg' | 'ffprobe', args: string[], options: MediaRunOptions = {}): Promise<MediaRunResult> {
  const { signal, timeoutMs = DEFAULT_TIMEOUT_MS, stdout = 'ignore', stdoutLimitBytes = 64 * 1024 * 1024, allowFailure = false } = options;
  if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted')));
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['ignore', stdout === 'buffer' ? 'pipe' : 'ignore', 'pipe'] });
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: Error | null = null;
    const stop = (error: Error) => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const onAbort = () => stop(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason ?? 'aborted')));
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop(new MediaRunError(tool, null, stderr, `did not finish within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > stdoutLimitBytes) stop(new MediaRunError(tool, null, stderr, `wrote more than ${stdoutLimitBytes} bytes`));
      else chunks.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_KEEP)));
    const finish = () => {
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
}

/** ffmpeg without its banner or stdin. */
export function runFfmpeg(args: string[], options?: MediaRunOptions): Promise<MediaRunResult> {
  return runMediaTool('ffmpeg', ['-hide_banner', '-nostdin', ...args], options);
}

export function runFfprobe(args: string[], options?: MediaRunOptions): Promise<MediaRunResult> {
  return runMediaTool('ffprobe', args, options);
}
