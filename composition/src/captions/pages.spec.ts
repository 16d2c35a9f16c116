import { resolveRequest, type ResolvedText } from '../schema';
import { validateRenderRequest } from '../schema/validate';
import { captionPages, toSrt, toVtt, type CaptionWord } from './pages';

const words = (spec: string): CaptionWord[] =>
  spec.split(' ').map((token) => {
    const [text, start, end] = token.split('@').flatMap((part) => part.split('-'));
    return { text, start: Number(start), end: Number(end) };
  });

describe('caption pages', () => {
  it('breaks lines at max_words and max_chars, pages at max_lines, pauses and sentence ends', () => {
    const said = words('one@0-0.2 two@0.2-0.4 three@0.4-0.6 four@0.6-0.8 five@0.8-1 six.@1-1.2 seven@1.3-1.5 eight@3-3.2');
    const pages = captionPages(said, { maxWords: 2, maxChars: 32, maxLines: 2 });
    expect(pages.map((page) => page.lines.map((line) => line.map((w) => w.text).join(' ')))).toEqual([
      ['one two', 'three four'],
      ['five six.'],
      ['seven'],
      ['eight'],
    ]);
    // A page holds 0.5 s after its last word, but never into the next one.
    expect(pages.map((page) => [page.start, page.end])).toEqual([[0, 0.8], [0.8, 1.3], [1.3, 2], [3, 3.7]]);
    const narrow = captionPages(words('a@0-1 extraordinarily@1-2 b@2-3'), { maxWords: 10, maxChars: 5, maxLines: 3 });
    expect(narrow[0].lines.map((line) => line.map((w) => w.text))).toEqual([['a'], ['extraordinarily'], ['b']]);
  });

  it('writes SRT and VTT cues with millisecond times', () => {
    const pages = captionPages(words('hello@1.0-1.25 world@1.3-1.8'), { maxWords: 1, maxChars: 32, maxLines: 2 });
    expect(toSrt(pages)).toBe('1\n00:00:01,000 --> 00:00:02,300\nhello\nworld\n');
    expect(toVtt(pages)).toBe('WEBVTT\n\n00:00:01.000 --> 00:00:02.300\nhello\nworld\n');
  });
});

describe('captions in the resolved request', () => {
  const request = (extra: Record<string, unknown> = {}) => {
    const parsed = validateRenderRequest({
      width: 320,
      height: 180,
      frame_rate: 30,
      duration: 6,
      elements: [
        { type: 'video', id: 'clip', source_url: 'https://example.com/a.mp4', time: 1, in_point: 2, out_point: 6, speed: 2, ...extra },
        { type: 'text', transcript: { source: 'clip', max_words: 2 }, time: 0.5 },
      ],
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.value;
  };

  it('places element-source words where the element plays them, on the frame their start falls in', () => {
    const resolved = resolveRequest(request(), {}, { clip: words('early@1-1.5 hi@2.1-2.3 there@3.0-3.5 late@6.5-7') });
    const text = resolved.elements.find((element): element is ResolvedText => element.type === 'text')!;
    // "hi" at source 2.1 s: 0.1 s into the trimmed clip, at speed 2 → 1.05 s on the timeline → frame 31; the text starts at frame 15.
    expect(text.captions!.pages.map((page) => page.lines.flat().map((word) => [word.text, word.from]))).toEqual([
      [['hi', 31 - 15], ['there', 45 - 15]],
    ]);
    expect(text.text).toBe('hi there');
  });

  it('counts task-source word times from the text element start', () => {
    const parsed = validateRenderRequest({ width: 320, height: 180, frame_rate: 25, elements: [{ type: 'text', transcript: { source: 'task_01ABC' }, time: 2 }] });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const resolved = resolveRequest(parsed.value, {}, { task_01ABC: words('go@0.039-0.5 now@0.04-0.6') });
    const text = resolved.elements[0] as ResolvedText;
    expect(text.captions!.pages[0].lines.flat().map((word) => word.from)).toEqual([0, 1]);
  });
});
