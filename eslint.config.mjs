// Lint for the service (typescript-eslint) and the composition (plus Remotion's own rules).
import js from '@eslint/js';
import remotion from '@remotion/eslint-plugin';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const COMPOSITION_ENTRY_ONLY = {
  regex: '(^|/)composition/src(/(?!schema$).*)?$',
  message: "Import the composition through its entry, composition/src/schema (export what you need from composition/src/schema/index.ts).",
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'examples/**/dist/**', 'composition/dist/**', 'clients/*/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      // Unused bindings are mistakes, except names that say they are deliberately unused.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Nest injects by class; a class used only in a constructor parameter is still used.
      '@typescript-eslint/consistent-type-imports': 'off',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['composition/**/*.{ts,tsx}'],
    plugins: { ...remotion.flatPlugin.plugins, 'react-hooks': reactHooks },
    rules: { ...remotion.flatPlugin.rules, 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    files: ['playground/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // SQL lives in repositories: a service or worker never holds the DataSource or an EntityManager
    // of its own (docs/architecture.md, "Rules every change keeps"); it opens a transaction through
    // TransactionRepository and passes the EntityManager it is given to the repositories.
    files: ['src/**/*.ts'],
    ignores: [
      'src/**/*.repository.ts',
      'src/**/*.spec.ts',
      'src/infra/database/**',
      'src/migrations/**',
      'src/app.module.ts',
      'src/data-source-options.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Decorator[expression.callee.name=/^Inject(DataSource|EntityManager)$/]",
          message: 'Only *.repository.ts files (and src/infra/database) inject the DataSource or an EntityManager; use a repository, and TransactionRepository for a transaction.',
        },
        {
          selector: "MethodDefinition[kind='constructor'] Identifier[typeAnnotation.typeAnnotation.typeName.name=/^(DataSource|EntityManager)$/]",
          message: 'Only *.repository.ts files (and src/infra/database) take the DataSource or an EntityManager in a constructor; use a repository, and TransactionRepository for a transaction.',
        },
      ],
    },
  },
  {
    // The composition is imported through its public entry, `composition/src/schema` (the package's
    // `./schema`: pure, no React, no Node APIs), never its internals nor the Remotion entry
    // (docs/decisions/0039-folders-without-circles.md). Tests may hold the engine against internals.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [COMPOSITION_ENTRY_ONLY] }],
    },
  },
  {
    // One media runner (docs/architecture.md, "Rules every change keeps"; issue 34): ffmpeg and
    // ffprobe run through src/infra/media/media-runner.ts, so no process is spawned elsewhere. The
    // exceptions start other programs: the database (src/infra/database), pocketsphinx (a task
    // engine) and tar for the font packages. Chromium is launched by Remotion/puppeteer.
    // (The composition rule is repeated: a later block's options replace an earlier one's.)
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts', 'src/infra/**', 'src/tasks/transcribe/engines/pocketsphinx.engine.ts', 'src/fonts/font-catalogue.service.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:child_process', 'child_process'].map((name) => ({
            name,
            message: 'Run ffmpeg and ffprobe through src/infra/media/media-runner.ts (runFfmpeg, runFfprobe, startFfmpeg); another program needs an exception in eslint.config.mjs.',
          })),
          patterns: [COMPOSITION_ENTRY_ONLY],
        },
      ],
    },
  },
  {
    // Tests read JSON answers of many shapes; `any` there is the honest type of a parsed body.
    files: ['test/**/*.ts', '**/*.spec.ts', '**/*.spec.tsx'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs', 'scripts/**/*.{js,mjs,mts}', 'bench/**/*.{js,mjs,mts}'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
