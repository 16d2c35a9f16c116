/**
 * Captions from words with times: the words grouped into pages (what is on screen at once) of at
 * most `maxLines` lines, each line at most `maxWords` words and `maxChars` characters. A page also
 * ends at a sentence end (".", "?", "!") and at a pause in the speech, as social-video editors
 * break captions. Pure: the composition, the browser Player and the SRT/VTT export share it.
 */

/** A spoken word, seconds on the caption's clock (the composition draws them; the export writes them). */
export interface CaptionWord {
  text: string;
  start: number;
  end: number;
}

export interface CaptionLayout {
  maxWords: number;
  maxChars: number;
  maxLines: number;
}

export interface CaptionPage {
  /** Lines of words, in order. */
  lines: CaptionWord[][];
  /** First word's start. */
  start: number;
  /** When the page leaves the screen: its last word's end, held on up to the next page (see CAPTION_HOLD_SECONDS). */
  end: number;
}

export const CAPTION_DEFAULTS: CaptionLayout = { maxWords: 6, maxChars: 32, maxLines: 2 };
/** A silence at least this long between two words starts a new page. */
export const CAPTION_PAUSE_SECONDS = 0.7;
/** A page stays up this long after its last word (or until the next page starts, if sooner), so it can be read. */
export const CAPTION_HOLD_SECONDS = 0.5;

const SENTENCE_END = /[.?!…]["')\]]*$/;

export function captionPages(words: readonly CaptionWord[], layout: CaptionLayout = CAPTION_DEFAULTS): CaptionPage[] {
  const ordered = words.filter((word) => word.text.trim() !== '').map((word) => ({ ...word, text: word.text.trim() }));
  ordered.sort((a, b) => a.start - b.start);
  const pages: CaptionWord[][][] = [];
  let lines: CaptionWord[][] = [];
  let line: CaptionWord[] = [];
  const closeLine = () => {
    if (line.length > 0) lines.push(line);
    line = [];
  };
  const closePage = () => {
    closeLine();
    if (lines.length > 0) pages.push(lines);
    lines = [];
  };
  let previous: CaptionWord | null = null;
  for (const word of ordered) {
    if (previous && (word.start - previous.end >= CAPTION_PAUSE_SECONDS || SENTENCE_END.test(previous.text))) closePage();
    const chars = line.reduce((sum, w) => sum + w.text.length + 1, 0) + word.text.length;
    if (line.length > 0 && (line.length >= layout.maxWords || chars > layout.maxChars)) {
      closeLine();
      if (lines.length >= layout.maxLines) closePage();
    }
    line.push(word);
    previous = word;
  }
  closePage();
  return pages.map((pageLines, index) => {
    const start = pageLines[0][0].start;
    const next = pages[index + 1]?.[0][0].start ?? Infinity;
    const spoken = Math.max(start, ...pageLines.flat().map((word) => word.end));
    return { lines: pageLines, start, end: Math.min(next, spoken + CAPTION_HOLD_SECONDS) };
  });
}

/** SubRip: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, one caption line per text line. */
export function toSrt(pages: readonly CaptionPage[]): string {
  return pages.map((page, index) => `${index + 1}\n${timestamp(page.start, ',')} --> ${timestamp(page.end, ',')}\n${pageText(page)}\n`).join('\n');
}

/** WebVTT: the header, then one cue per page. */
export function toVtt(pages: readonly CaptionPage[]): string {
  const cues = pages.map((page) => `${timestamp(page.start, '.')} --> ${timestamp(page.end, '.')}\n${pageText(page)}\n`);
  return ['WEBVTT\n', ...cues].join('\n');
}

export function pageText(page: CaptionPage): string {
  return page.lines.map((line) => line.map((word) => word.text).join(' ')).join('\n');
}

function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}
