/** The transcribe analyses' names and result shapes, apart from the NLP libraries that compute them (loaded on first use). */

/** The analysis switches of a transcribe request; each one adds its field to the result. */
export const ANALYSES = ['key_phrases', 'sentiment', 'entities', 'chapters', 'summary'] as const;
export type AnalysisName = (typeof ANALYSES)[number];

export interface Span {
  start: number;
  end: number;
}

export interface KeyPhrase {
  text: string;
  count: number;
  /** 0–1, the best phrase 1. */
  rank: number;
  timestamps: Span[];
}

export interface SentimentResult extends Span {
  text: string;
  sentiment: 'POSITIVE' | 'NEUTRAL' | 'NEGATIVE';
  /** wink-nlp's sentiment score, −1 to 1. */
  score: number;
  speaker: string | null;
}

export interface Entity extends Span {
  entity_type: string;
  text: string;
}

export interface Chapter extends Span {
  /** The chapter's top key phrase. */
  gist: string;
  /** Its most central sentence. */
  headline: string;
  /** Its most central sentences, in order. */
  summary: string;
}

export interface Analyses {
  key_phrases?: KeyPhrase[];
  sentiment?: SentimentResult[];
  entities?: Entity[];
  chapters?: Chapter[];
  summary?: string;
}
