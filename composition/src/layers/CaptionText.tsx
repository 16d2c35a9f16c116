import type React from 'react';
import { Sequence, useCurrentFrame, useVideoConfig } from 'remotion';
import { AnimatedText } from '../motion/text-animation';
import type { ResolvedCaptions, ResolvedText } from '../schema';

/**
 * Captions of a text element: the page of words on screen at this frame, its lines as the
 * transcript layout broke them, the word being spoken (the last one whose first frame has come)
 * in the highlight colour, on a rounded box when `highlight_background` is set. The box is a
 * spread shadow, so highlighting moves nothing. A text animation replays on every page; split by
 * word, each word plays it as it is spoken (as word-pop captions do in social-video editors).
 */
export const CaptionText: React.FC<{ element: ResolvedText; captions: ResolvedCaptions }> = ({ element, captions }) => {
  const frame = useCurrentFrame();
  const { fps } = useVideoConfig();
  const page = captions.pages.find((candidate) => frame >= candidate.from && frame < candidate.to);
  if (!page) return null;
  const words = page.lines.flat();
  let current = -1;
  words.forEach((word, index) => {
    if (word.from <= frame) current = index;
  });
  const wordStyle = (index: number): React.CSSProperties | undefined => {
    if (index === current) {
      return {
        color: captions.highlightColor,
        ...(captions.highlightBackground
          ? { backgroundColor: captions.highlightBackground, borderRadius: '0.18em', boxShadow: `0 0 0 0.12em ${captions.highlightBackground}` }
          : {}),
      };
    }
    if (captions.reveal === 'word' && index > current) return { visibility: 'hidden' };
    return undefined;
  };
  const text = page.lines.map((line) => line.map((word) => word.text).join(' ')).join('\n');
  const animation = element.animation?.text;
  if (animation) {
    const length = page.to - page.from;
    const wordStart = (index: number) => animation.start + ((words[index]?.from ?? page.from) - page.from) / fps;
    return (
      <Sequence from={page.from} durationInFrames={length} layout="none" name="caption">
        <AnimatedText element={{ ...element, text, durationInFrames: length }} animation={animation} wordStyle={wordStyle} wordStart={wordStart} />
      </Sequence>
    );
  }
  let index = 0;
  return (
    <>
      {page.lines.map((line, lineIndex) => (
        <span key={lineIndex}>
          {lineIndex > 0 ? '\n' : null}
          {line.map((word, wordIndex) => (
            <span key={wordIndex}>
              {wordIndex > 0 ? ' ' : null}
              <span style={wordStyle(index++)}>{word.text}</span>
            </span>
          ))}
        </span>
      ))}
    </>
  );
};
