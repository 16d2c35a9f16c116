import { spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { TaskFailure } from '../../task-failure';
import { EngineCapabilities, EngineRequest, EngineTranscript, EngineWord, SpeechEngine } from './speech-engine';

/** Debian's `pocketsphinx` with the `pocketsphinx-en-us` model: US English only, no diarization, no punctuation. */
export const POCKETSPHINX_CAPABILITIES: EngineCapabilities = {
  languages: ['en-US'],
  language_detection: false,
  default_language: 'en-US',
  speaker_labels: false,
  punctuate: false,
};

const BINARY = 'pocketsphinx_continuous';
/** Where `pocketsphinx-en-us` puts the model the binary uses by default. */
export const POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us/en-us';

/** `word start end confidence`, as `-time yes` prints one per recognised token. */
const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)$/;

export interface PocketsphinxOptions {
  /**
   * A JSGF grammar file that constrains what can be recognised (`-jsgf`) instead of the
   * open-vocabulary language model. For fixed-vocabulary deployments, and the tests: synthetic
   * speech is too far from the acoustic model to be recognised reliably without one.
   */
  grammarFile: string | null;
}

/**
 * The offline default: runs on the worker with no network and no model download. Segments are
 * pocketsphinx's own utterances (it splits the audio at pauses).
 */
export class PocketsphinxEngine extends SpeechEngine {
  readonly name = 'pocketsphinx' as const;
  readonly capabilities = POCKETSPHINX_CAPABILITIES;

  constructor(private readonly options: PocketsphinxOptions) {
    super();
  }

  /** Start-up check: a worker without the binary, the model or the grammar must not take jobs. */
  async assertAvailable(): Promise<void> {
    const found = await new Promise<boolean>((resolve) => {
      const probe = spawn(BINARY, ['-h'], { stdio: 'ignore' });
      probe.on('error', () => resolve(false));
      probe.on('close', () => resolve(true));
    });
    if (!found) throw new Error(`TRANSCRIBE_ENGINE=pocketsphinx needs ${BINARY} (Debian packages pocketsphinx and pocketsphinx-en-us)`);
    await access(POCKETSPHINX_MODEL_DIR).catch(() => {
      throw new Error(`TRANSCRIBE_ENGINE=pocketsphinx needs its model in ${POCKETSPHINX_MODEL_DIR} (Debian package pocketsphinx-en-us)`);
    });
    if (this.options.grammarFile) {
      await access(this.options.grammarFile).catch(() => {
        throw new Error(`POCKETSPHINX_JSGF names ${this.options.grammarFile}, which cannot be read`);
      });
    }
  }

  async transcribe(request: EngineRequest): Promise<EngineTranscript> {
    const args = ['-infile', request.wavFile, '-time', 'yes', '-logfn', '/dev/null'];
    if (this.options.grammarFile) args.push('-jsgf', this.options.grammarFile);
    const child = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: request.signal });
    const segments: EngineWord[][] = [];
    let current: EngineWord[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    const exit = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    for await (const line of createInterface({ input: child.stdout })) {
      const match = WORD_LINE.exec(line.trim());
      if (!match) {
        // A hypothesis line opens each utterance's word list.
        if (current.length > 0) segments.push(current);
        current = [];
        continue;
      }
      const [, token, start, end, confidence] = match;
      const word = spokenWord(token);
      if (!word) continue;
      current.push({ text: word, start: toMs(start), end: toMs(end), confidence: clamp01(Number(confidence)), speaker: null });
      request.onProgress(Number(end) / Math.max(request.durationSeconds, 0.001));
    }
    if (current.length > 0) segments.push(current);
    const code = await exit;
    request.signal.throwIfAborted();
    if (code !== 0) throw new TaskFailure('internal', `pocketsphinx exited with code ${code}: ${stderr.trim().split('\n').pop() ?? ''}`);
    return { language_code: POCKETSPHINX_CAPABILITIES.default_language!, segments };
  }
}

/**
 * The word of a token, or null for the markers pocketsphinx interleaves: `<s>`, `</s>`, `<sil>`,
 * `(NULL)` (grammar transitions), `[NOISE]`, `++GARBAGE++`. Alternate pronunciations carry a
 * `(2)` suffix in the dictionary; the word is the same.
 */
export function spokenWord(token: string): string | null {
  if (/^(<.*>|\(NULL\)|\[.*\]|\+\+.*\+\+)$/.test(token)) return null;
  return token.replace(/\(\d+\)$/, '');
}

function toMs(seconds: string): number {
  return Math.round(Number(seconds) * 1000);
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
