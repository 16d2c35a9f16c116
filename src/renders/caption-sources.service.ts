import { Injectable } from '@nestjs/common';
import type { CaptionWord, RenderRequest, TranscriptWords } from '../../composition/src/schema';
import { ApiError, ValidationErrorItem } from '../common/errors/api-error';
import { Job } from '../jobs/job.entity';
import { JobRepository } from '../jobs/job.repository';
import { TranscriptCacheService } from '../tasks/transcribe/transcript-cache.service';
import { RenderFailure } from './render-failure';

interface CaptionSource {
  /** `transcript.source`: an element id or a task id. */
  source: string;
  /** Index of the first text element naming it (for pointers). */
  index: number;
  /** The video/audio element's URL when the source is an element, else null (a task). */
  sourceUrl: string | null;
}

/** Distinct `transcript.source`s of a request's text elements. */
function captionSources(request: RenderRequest): CaptionSource[] {
  const elements = request.elements ?? [];
  const found = new Map<string, CaptionSource>();
  elements.forEach((element, index) => {
    if (element.type !== 'text' || !element.transcript || found.has(element.transcript.source)) return;
    const source = element.transcript.source;
    const named = elements.find((candidate) => candidate.id === source);
    const sourceUrl = named && (named.type === 'video' || named.type === 'audio') ? named.source_url : null;
    found.set(source, { source, index, sourceUrl });
  });
  return [...found.values()];
}

/** What a completed transcribe task is asked for by captions: its words, seconds. */
function wordsOfResult(result: Record<string, unknown> | null): CaptionWord[] {
  const words = Array.isArray(result?.words) ? (result.words as { text: string; start: number; end: number }[]) : [];
  return words.map((word) => ({ text: word.text, start: word.start / 1000, end: word.end / 1000 }));
}

/**
 * The words behind captions (`transcript.source` of text elements): a transcribe task of the
 * workspace is checked at submit and read at render time; a video/audio element of the request is
 * transcribed by the worker through the transcript cache (once per source URL per workspace).
 */
@Injectable()
export class CaptionSourcesService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly cache: TranscriptCacheService,
  ) {}

  /** Submit: every task named must be a completed transcribe task of this workspace, else 422 with the pointer. */
  async assertTasks(workspaceId: string, request: RenderRequest): Promise<void> {
    const problems: ValidationErrorItem[] = [];
    for (const caption of captionSources(request)) {
      if (caption.sourceUrl !== null) continue;
      const problem = this.taskProblem(caption.source, await this.jobs.findInWorkspace(workspaceId, 'task', caption.source));
      if (problem) {
        problems.push({ type: 'value_error', loc: ['body', 'elements', caption.index, 'text', 'transcript', 'source'], msg: problem, pointer: `/elements/${caption.index}/transcript/source` });
      }
    }
    if (problems.length > 0) throw ApiError.validation(problems);
  }

  /**
   * Worker: the words of every caption source. `localFile` gives the render's copy of a source URL;
   * `onProgress` reports the share of the transcriptions done (0–1).
   */
  async words(job: Job, request: RenderRequest, localFile: (url: string) => string, signal: AbortSignal, onProgress: (fraction: number) => void): Promise<TranscriptWords> {
    const sources = captionSources(request);
    const transcripts: TranscriptWords = {};
    for (const [done, caption] of sources.entries()) {
      if (caption.sourceUrl === null) {
        const task = await this.jobs.findInWorkspace(job.workspaceId, 'task', caption.source);
        const problem = this.taskProblem(caption.source, task);
        if (problem) throw new RenderFailure('invalid_request', `${problem} (at /elements/${caption.index}/transcript/source)`);
        transcripts[caption.source] = wordsOfResult(task!.result);
      } else {
        const words = await this.cache.words({
          workspaceId: job.workspaceId,
          sourceUrl: caption.sourceUrl,
          file: localFile(caption.sourceUrl),
          signal,
          onProgress: (fraction) => onProgress((done + fraction) / sources.length),
        });
        transcripts[caption.source] = words.map((word) => ({ text: word.text, start: word.start / 1000, end: word.end / 1000 }));
      }
      onProgress((done + 1) / sources.length);
    }
    return transcripts;
  }

  /** Whether the request has captions at all (the job then shows a transcription stage). */
  static hasCaptions(request: RenderRequest): boolean {
    return captionSources(request).length > 0;
  }

  private taskProblem(id: string, task: Job | null): string | null {
    if (!task) return `No task ${id} in this workspace; transcript.source names a video/audio element id of the request or a completed transcribe task`;
    if (task.taskType !== 'transcribe') return `Task ${id} is a ${task.taskType} task, not transcribe`;
    if (task.status !== 'completed') return `Task ${id} is ${task.status}; captions need a completed transcribe task`;
    return null;
  }
}
