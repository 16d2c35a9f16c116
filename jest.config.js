/** Jest runs TypeScript through SWC (fast, keeps decorator metadata for Nest and class-validator). */
const swc = (tsx) => [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true, tsx },
      transform: { legacyDecorator: true, decoratorMetadata: true, react: { runtime: 'automatic' } },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/composition'],
  testMatch: ['**/*.spec.ts', '**/*.spec.tsx', '**/*.e2e-spec.ts'],
  transform: {
    '^.+\\.tsx$': swc(true),
    '^.+\\.(ts|js)$': swc(false),
  },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // Fails a test file whose app sent a response the OpenAPI document does not describe.
  setupFilesAfterEnv: ['<rootDir>/test/setup/contract-check.ts'],
  // Two files at a time: much of an e2e file's time is waiting (app start, queue, webhooks, the
  // browser), so a second file fills the other core; each file has its own database, data folder,
  // ports and app, so they cannot meet. A long test may take twice its solo time while sharing.
  maxWorkers: 2,
  // The heaviest render files first (a static list: a fresh CI cache knows no durations).
  testSequencer: '<rootDir>/test/setup/slow-first-sequencer.js',
  testTimeout: 120000,
  // No forceExit: test files close their apps, pools and browsers, so Jest exits by itself;
  // test/setup/global-teardown.ts keeps a safety net that names the problem if one is left open.
};
