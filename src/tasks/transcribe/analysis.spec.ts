import { analyse } from './analysis';
import { buildTranscript } from './transcript';

/** Punctuated words a second each, sentences 1.6 s apart, as an engine that punctuates (Google) returns them. */
function transcriptOf(sentences: string[], speaker: string | null = null) {
  let t = 0;
  const words = sentences.flatMap((sentence) => {
    const out = sentence.split(' ').map((text) => ({ text, start: t, end: (t += 1000) - 50, confidence: 0.9, speaker }));
    t += 1600;
    return out;
  });
  return buildTranscript({ language_code: 'en-US', segments: [words] }, t / 1000);
}

const FOOTBALL = [
  'The football match in London was wonderful.',
  'The football team scored three goals in the match.',
  'Fans of the football team sang in the stadium.',
  'The coach praised the football team after the match.',
  'The match ended with a great football celebration.',
];
const COOKING = [
  'Now the recipe needs flour, sugar and butter.',
  'Mix the flour and the sugar in a bowl for the recipe.',
  'Melt the butter slowly for the recipe.',
  'Bake the recipe for twenty minutes at a low heat.',
  'The recipe tastes terrible when the butter burns.',
];

describe('analyse', () => {
  const transcript = transcriptOf([...FOOTBALL, ...COOKING]);
  const all = analyse(transcript.utterances, new Set(['key_phrases', 'sentiment', 'entities', 'chapters', 'summary'] as const));

  it('adds only what was asked for', () => {
    expect(analyse(transcript.utterances, new Set())).toEqual({});
    expect(Object.keys(analyse(transcript.utterances, new Set(['summary'] as const)))).toEqual(['summary']);
  });

  it('ranks repeated noun phrases first, each with when it was said', () => {
    const top = all.key_phrases!.slice(0, 4).map((p) => p.text);
    expect(top).toEqual(expect.arrayContaining(['recipe']));
    const recipe = all.key_phrases!.find((p) => p.text === 'recipe')!;
    expect(recipe.count).toBe(5);
    const said = transcript.words.filter((w) => w.text.toLowerCase().startsWith('recipe'));
    expect(recipe.timestamps.map((s) => s.start)).toEqual(said.map((w) => w.start));
  });

  it('scores each sentence with its timing', () => {
    expect(all.sentiment).toHaveLength(10);
    expect(all.sentiment![0]).toMatchObject({ text: FOOTBALL[0], sentiment: 'POSITIVE', start: 0 });
    expect(all.sentiment![9]).toMatchObject({ text: COOKING[4], sentiment: 'NEGATIVE' });
  });

  it('finds places, numbers and durations, on the words that say them', () => {
    const london = all.entities!.find((e) => e.text === 'London')!;
    expect(london.entity_type).toBe('location');
    expect(london.start).toBe(transcript.words.find((w) => w.text === 'London')!.start);
    expect(all.entities!.map((e) => e.entity_type)).toEqual(expect.arrayContaining(['number']));
  });

  it('splits chapters where the topic changes, and summarises with central sentences', () => {
    expect(all.chapters).toHaveLength(2);
    const [first, second] = all.chapters!;
    expect(first.start).toBe(0);
    expect(second.start).toBe(transcript.utterances[0].words.find((w) => w.text === 'Now')!.start);
    expect(second.end).toBe(transcript.words[transcript.words.length - 1].end);
    expect(first.gist).toMatch(/football|match/);
    expect(second.gist).toMatch(/recipe|butter|flour/);
    expect(FOOTBALL).toContain(first.headline);
    expect(COOKING).toContain(second.headline);
    const summarySentences = all.summary!.split(/(?<=\.) /);
    expect(summarySentences).toHaveLength(2);
    for (const sentence of summarySentences) expect([...FOOTBALL, ...COOKING]).toContain(sentence);
  });
});
