import nlpCompromise from 'compromise';
import winkNLP from 'wink-nlp';
import BM25Vectorizer from 'wink-nlp/utilities/bm25-vectorizer';
import similarity from 'wink-nlp/utilities/similarity';
import model from 'wink-eng-lite-web-model';
import type { Analyses, AnalysisName, Chapter, Entity, KeyPhrase, SentimentResult, Span } from './analysis-types';
import { TranscriptWord, Utterance } from './transcript';

export * from './analysis-types';

/** A sentence of the transcript with its timing: the unit every analysis works on. */
interface Sentence extends Span {
  text: string;
  speaker: string | null;
  words: TranscriptWord[];
}

const wink = winkNLP(model);
const its = wink.its;

/** A sentence scores this far from 0 before it counts as positive or negative. */
const SENTIMENT_THRESHOLD = 0.1;
const MAX_KEY_PHRASES = 15;
/** A chapter is at least this many sentences and this long. */
const MIN_CHAPTER_SENTENCES = 3;
const MIN_CHAPTER_MS = 30_000;

/** compromise's topic methods and wink-nlp's entity types → AssemblyAI's `entity_type` names. */
const WINK_ENTITY_TYPES: Record<string, string> = {
  DATE: 'date',
  TIME: 'time',
  DURATION: 'duration',
  MONEY: 'money_amount',
  PERCENT: 'percentage',
  CARDINAL: 'number',
  ORDINAL: 'ordinal',
  EMAIL: 'email_address',
  URL: 'url',
  HASHTAG: 'hashtag',
  MENTION: 'mention',
  EMOJI: 'emoji',
};

/**
 * The requested analyses of a transcript, from well-kept NLP libraries: wink-nlp (sentences'
 * sentiment, dates/money/number entities, BM25 vectors for centrality and topic shifts) and
 * compromise (noun phrases, people, places, organisations). Everything is computed per sentence
 * and mapped back onto word timings, so each finding says when it was said.
 */
export function analyse(utterances: Utterance[], requested: ReadonlySet<AnalysisName>): Analyses {
  const sentences = utterances.flatMap(sentencesOf);
  const out: Analyses = {};
  if (requested.size === 0) return out;
  const phrases = keyPhrases(sentences);
  if (requested.has('key_phrases')) out.key_phrases = phrases;
  if (requested.has('sentiment')) out.sentiment = sentences.map(sentimentOf);
  if (requested.has('entities')) out.entities = sentences.flatMap(entitiesOf);
  const centrality = requested.has('summary') || requested.has('chapters') ? centralityOf(sentences) : [];
  if (requested.has('summary')) out.summary = summarise(sentences, centrality, Math.min(5, Math.max(1, Math.round(sentences.length / 5))));
  if (requested.has('chapters')) out.chapters = chapters(sentences, centrality);
  return out;
}

/** Sentences end at a word ending in . ? or ! (engines that punctuate); an unpunctuated utterance is one sentence. */
function sentencesOf(utterance: Utterance): Sentence[] {
  const groups: TranscriptWord[][] = [[]];
  for (const word of utterance.words) {
    groups[groups.length - 1].push(word);
    if (/[.?!]["')\]]*$/.test(word.text)) groups.push([]);
  }
  return groups
    .filter((words) => words.length > 0)
    .map((words) => ({ text: words.map((w) => w.text).join(' '), start: words[0].start, end: words[words.length - 1].end, speaker: utterance.speaker, words }));
}

/** The words of `sentence` that `phrase` covers (first occurrence at or after `from` characters), as a time span. */
function spanOf(sentence: Sentence, phrase: string, from = 0): (Span & { after: number }) | null {
  const at = sentence.text.toLowerCase().indexOf(phrase.toLowerCase(), from);
  if (at < 0) return null;
  const endAt = at + phrase.length;
  let offset = 0;
  const covered: TranscriptWord[] = [];
  for (const word of sentence.words) {
    const wordEnd = offset + word.text.length;
    if (wordEnd > at && offset < endAt) covered.push(word);
    offset = wordEnd + 1;
  }
  if (covered.length === 0) return null;
  return { start: covered[0].start, end: covered[covered.length - 1].end, after: endAt };
}

function keyPhrases(sentences: Sentence[]): KeyPhrase[] {
  const found = new Map<string, { text: string; timestamps: Span[] }>();
  for (const sentence of sentences) {
    const nouns = nlpCompromise(sentence.text).nouns().not('#Determiner').not('#Pronoun');
    let from = 0;
    for (const raw of nouns.out('array') as string[]) {
      const text = raw.replace(/[^\p{L}\p{N}' -]+/gu, '').trim();
      if (text.length < 3) continue;
      const key = text.toLowerCase();
      const span = spanOf(sentence, text, from);
      if (span) from = span.after;
      const entry = found.get(key) ?? { text: key, timestamps: [] };
      entry.timestamps.push(span ? { start: span.start, end: span.end } : { start: sentence.start, end: sentence.end });
      found.set(key, entry);
    }
  }
  // More mentions and more words make a phrase more telling.
  const scored = [...found.values()].map((p) => ({ ...p, score: p.timestamps.length * Math.sqrt(p.text.split(' ').length) }));
  scored.sort((a, b) => b.score - a.score || a.text.localeCompare(b.text));
  const best = scored[0]?.score ?? 1;
  return scored.slice(0, MAX_KEY_PHRASES).map((p) => ({
    text: p.text,
    count: p.timestamps.length,
    rank: Math.round((p.score / best) * 100) / 100,
    timestamps: p.timestamps,
  }));
}

function sentimentOf(sentence: Sentence): SentimentResult {
  const score = Math.round((wink.readDoc(sentence.text).out(its.sentiment) as unknown as number) * 1000) / 1000;
  const sentiment = score >= SENTIMENT_THRESHOLD ? 'POSITIVE' : score <= -SENTIMENT_THRESHOLD ? 'NEGATIVE' : 'NEUTRAL';
  return { text: sentence.text, start: sentence.start, end: sentence.end, sentiment, score, speaker: sentence.speaker };
}

function entitiesOf(sentence: Sentence): Entity[] {
  const found: { type: string; text: string }[] = [];
  const topics = nlpCompromise(sentence.text);
  for (const text of topics.people().out('array') as string[]) found.push({ type: 'person_name', text });
  for (const text of topics.places().out('array') as string[]) found.push({ type: 'location', text });
  for (const text of topics.organizations().out('array') as string[]) found.push({ type: 'organization', text });
  const details = wink.readDoc(sentence.text).entities().out(its.detail) as unknown as { value: string; type: string }[];
  for (const { type, value } of details) found.push({ type: WINK_ENTITY_TYPES[type] ?? type.toLowerCase(), text: value });
  const entities: Entity[] = [];
  for (const { type, text } of found) {
    const clean = text.replace(/[.,;:!?]+$/, '').trim();
    const span = clean ? spanOf(sentence, clean) : null;
    if (span) entities.push({ entity_type: type, text: clean, start: span.start, end: span.end });
  }
  return entities.sort((a, b) => a.start - b.start);
}

/** BM25 bag of words of each sentence's content words (no stop words, no punctuation). */
function bagsOf(sentences: Sentence[]) {
  const vectorizer = BM25Vectorizer();
  for (const sentence of sentences) {
    const tokens = wink.readDoc(sentence.text).tokens().filter((t) => t.out(its.type) === 'word' && !t.out(its.stopWordFlag));
    vectorizer.learn(tokens.out(its.normal) as string[]);
  }
  return sentences.map((_, index) => vectorizer.doc(index).out(its.bow) as Record<string, number>);
}

/** How much each sentence shares with the rest (sum of cosine similarities): the summary's and chapters' choice. */
function centralityOf(sentences: Sentence[]): number[] {
  if (sentences.length === 0) return [];
  const bags = bagsOf(sentences);
  return bags.map((bag, i) => bags.reduce((sum, other, j) => (i === j ? sum : sum + cosine(bag, other)), 0));
}

function cosine(a: Record<string, number>, b: Record<string, number>): number {
  if (Object.keys(a).length === 0 || Object.keys(b).length === 0) return 0;
  const value = similarity.bow.cosine(a, b);
  return Number.isFinite(value) ? value : 0;
}

/** The `count` most central sentences, in the order they were said. */
function summarise(sentences: Sentence[], centrality: number[], count: number): string {
  const chosen = sentences
    .map((sentence, index) => ({ sentence, index, score: centrality[index] ?? 0 }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index);
  return chosen.map((c) => c.sentence.text).join(' ');
}

/**
 * Topic segmentation in the manner of TextTiling: a chapter break goes where the vocabulary of
 * the sentences before and after a point overlaps least, and well below the usual overlap, with
 * each chapter at least 3 sentences and 30 s long. Short transcripts are one chapter.
 */
function chapters(sentences: Sentence[], centrality: number[]): Chapter[] {
  if (sentences.length === 0) return [];
  const bags = bagsOf(sentences);
  const merge = (from: number, to: number) => {
    const merged: Record<string, number> = {};
    for (const bag of bags.slice(Math.max(0, from), Math.max(0, to))) for (const [term, weight] of Object.entries(bag)) merged[term] = (merged[term] ?? 0) + weight;
    return merged;
  };
  const window = MIN_CHAPTER_SENTENCES;
  const gaps = sentences.map((_, i) => (i === 0 ? 1 : cosine(merge(i - window, i), merge(i, i + window))));
  const inner = gaps.slice(1);
  const mean = inner.reduce((s, g) => s + g, 0) / Math.max(1, inner.length);
  const spread = Math.sqrt(inner.reduce((s, g) => s + (g - mean) ** 2, 0) / Math.max(1, inner.length));
  const breaks = [0];
  const candidates = inner.map((g, k) => ({ index: k + 1, gap: g })).filter((c) => c.gap < mean - spread / 2).sort((a, b) => a.gap - b.gap);
  for (const { index } of candidates) {
    const bounds = [...breaks, sentences.length].sort((a, b) => a - b);
    const previous = Math.max(...bounds.filter((b) => b < index));
    const next = Math.min(...bounds.filter((b) => b > index));
    const longEnough = (from: number, to: number) => to - from >= MIN_CHAPTER_SENTENCES && sentences[to - 1].end - sentences[from].start >= MIN_CHAPTER_MS;
    if (longEnough(previous, index) && longEnough(index, next)) breaks.push(index);
  }
  breaks.sort((a, b) => a - b);
  return breaks.map((from, k) => {
    const to = breaks[k + 1] ?? sentences.length;
    const part = sentences.slice(from, to);
    const partCentrality = centrality.slice(from, to);
    const headline = summarise(part, partCentrality, 1);
    return {
      start: part[0].start,
      end: part[part.length - 1].end,
      gist: keyPhrases(part)[0]?.text ?? headline.split(' ').slice(0, 5).join(' '),
      headline,
      summary: summarise(part, partCentrality, Math.min(3, Math.max(1, Math.round(part.length / 4)))),
    };
  });
}
