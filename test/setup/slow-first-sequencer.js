const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * The files with the most rendering, heaviest first (by CPU seconds, docs/performance-log/2026-11-28-composite-test-file.md): they start before everything else, so the
 * two workers do not end with one of them alone on a long file. Jest's own order puts a file with
 * no timing in its cache by its size (render-parity and render-scale-out are small files with long
 * renders) and a file timed alone in an earlier run after every untimed one.
 */
const SLOW_FIRST = [
  'test/render-media-composite.e2e-spec.ts',
  'test/render-chunks.e2e-spec.ts',
  'test/render-scale-out.e2e-spec.ts',
  'test/previews.e2e-spec.ts',
  'test/render-parity.e2e-spec.ts',
  'test/render-features.e2e-spec.ts',
  'test/render-look.e2e-spec.ts',
  'test/render-fonts.e2e-spec.ts',
  'test/render-motion.e2e-spec.ts',
  'test/render-chunk-crash.e2e-spec.ts',
  'test/render-blended-frames.e2e-spec.ts',
  'test/render-speed.e2e-spec.ts',
];

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const rank = (test) => SLOW_FIRST.indexOf(path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/'));
    const listed = tests.filter((test) => rank(test) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...listed, ...super.sort(tests.filter((test) => rank(test) < 0))];
  }
}

module.exports = SlowFirstSequencer;
