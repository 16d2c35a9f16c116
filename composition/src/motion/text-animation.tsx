import type React from 'react';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useCurrentFrame, useDelayRender, useVideoConfig } from 'remotion';
import type { ResolvedText } from '../schema/resolve';
import { easingFunction } from './easing';
import { motionPosition } from './element-motion';
import { keyframeState } from './keyframes';
import type { MotionState } from './state';
import { joinedLetter, partStart, splitGraphemes, splitWords, textDirection, type TextAnimation } from './text-split';

function partStyle(motion: MotionState): React.CSSProperties {
  const offset = (value: { px: number; percent: number }) => (value.percent === 0 ? `${value.px}px` : `calc(${value.px}px + ${value.percent}%)`);
  const still = motion.x.px === 0 && motion.x.percent === 0 && motion.y.px === 0 && motion.y.percent === 0 && motion.rotation % 360 === 0 && motion.scaleX === 1 && motion.scaleY === 1;
  return {
    display: 'inline-block',
    // A part at rest has no transform at all: Chromium keeps the raster of a part that was turned
    // (rotate(0deg) included) apart from the text around it, and the Player, which seeks through
    // earlier frames, then drew its glyphs differently from the render.
    transform: still ? undefined : `translate(${offset(motion.x)}, ${offset(motion.y)}) rotate(${motion.rotation}deg) scale(${motion.scaleX}, ${motion.scaleY})`,
    opacity: motion.opacity,
  };
}

/**
 * The text of a text element split into animated parts (see text-split.ts). Words sit in
 * unbreakable boxes and white space stays text, so the text wraps as it does unanimated. Lines
 * are found by measuring where the words landed, before the first frame is captured.
 */
export const AnimatedText: React.FC<{
  element: ResolvedText;
  animation: TextAnimation;
  /** Extra style of the n-th word (captions: the word being spoken). */
  wordStyle?: (word: number) => React.CSSProperties | undefined;
  /** Seconds where the n-th word's animation starts, instead of the stagger (captions: when it is spoken); word split only. */
  wordStart?: (word: number) => number;
}> = ({ element, animation, wordStyle, wordStart }) => {
  const frame = useCurrentFrame();
  const { fps } = useVideoConfig();
  const { delayRender, continueRender } = useDelayRender();
  const words = useMemo(() => splitWords(element.text), [element.text]);
  const direction = useMemo(() => textDirection(element.text), [element.text]);
  const wordRefs = useRef<(HTMLSpanElement | null)[]>([]);
  const [lineOfWord, setLineOfWord] = useState<number[] | null>(null);
  const { style } = element;
  const font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize}px ${style.fontStack}`;

  useLayoutEffect(() => {
    if (animation.split !== 'line') return;
    const handle = delayRender('Measuring lines of animated text');
    document.fonts.load(font, element.text).finally(() => {
      const tops: number[] = [];
      const lines: number[] = [];
      wordRefs.current.forEach((span, index) => {
        if (!span) return;
        const top = Math.round(span.offsetTop);
        let line = tops.findIndex((candidate) => Math.abs(candidate - top) < 2);
        if (line === -1) line = tops.push(top) - 1;
        lines[index] = line;
      });
      // Lines in reading order: top to bottom.
      const order = tops.map((top, line) => ({ top, line })).sort((a, b) => a.top - b.top).map(({ line }) => line);
      setLineOfWord(lines.map((line) => order.indexOf(line)));
      continueRender(handle);
    });
  }, [animation.split, font, element.text, words, delayRender, continueRender]);

  const seconds = frame / fps;
  const elementSeconds = element.durationInFrames / fps;
  const ease = easingFunction(animation.easing);
  const countLetters = words.reduce((sum, word) => sum + (word.space ? 0 : splitGraphemes(word.text).length), 0);
  const countWords = words.filter((word) => !word.space).length;
  const countLines = lineOfWord ? Math.max(0, ...lineOfWord.filter((line) => line !== undefined)) + 1 : 1;
  const count = animation.split === 'letter' ? countLetters : animation.split === 'word' ? countWords : countLines;
  const stateOf = (part: number) => {
    const start = animation.split === 'word' && wordStart ? wordStart(part) : partStart(animation, part, count, elementSeconds);
    const position = motionPosition({ start, duration: animation.duration, loop: animation.loop }, seconds);
    return keyframeState(animation.keyframes, animation.backwards ? ease(1 - position) : ease(position));
  };

  let letterIndex = 0;
  let wordIndex = 0;
  return (
    <span dir={direction}>
      {words.map((word, index) => {
        if (word.space) return word.text;
        const number = wordIndex++;
        const wordDirection = textDirection(word.text);
        const ref = (span: HTMLSpanElement | null) => {
          wordRefs.current[index] = span;
        };
        if (animation.split === 'letter') {
          // Each letter sits in its own box, where CSS would capitalize every one: capitalize here.
          const letters = splitGraphemes(style.textTransform === 'capitalize' ? capitalize(word.text) : word.text);
          return (
            <span key={index} ref={ref} dir={wordDirection} style={{ display: 'inline-block', whiteSpace: 'pre', textTransform: style.textTransform === 'capitalize' ? 'none' : undefined, ...wordStyle?.(number) }}>
              {letters.map((_, i) => (
                <span key={i} style={partStyle(stateOf(letterIndex++))}>
                  {joinedLetter(letters, i)}
                </span>
              ))}
            </span>
          );
        }
        const part = animation.split === 'word' ? number : (lineOfWord?.[index] ?? 0);
        return (
          <span key={index} ref={ref} dir={wordDirection} style={{ ...partStyle(stateOf(part)), whiteSpace: 'pre', ...wordStyle?.(number) }}>
            {word.text}
          </span>
        );
      })}
    </span>
  );
};

function capitalize(word: string): string {
  const [first = '', ...rest] = splitGraphemes(word);
  return first.toUpperCase() + rest.join('');
}
