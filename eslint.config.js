// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import golem from './scripts/eslint-plugin-golem.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bin/', 'scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      // Misreads assertions that noUncheckedIndexedAccess and exactOptionalPropertyTypes make necessary.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  { files: ['eslint.config.js', 'scripts/*.js', 'test/fixtures/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['scripts/*.js', 'test/fixtures/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } } },
  {
    // The parts' layering (scripts/import-graph.js) and the file-size guard.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { golem },
    rules: { 'golem/part-boundaries': 'error', 'golem/no-import-cycle': 'error' },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'web/src/**/*.ts', 'web/src/**/*.tsx'],
    rules: { 'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }] },
  },
  {
    // expect.any() / expect.stringContaining() are typed any by vitest.
    files: ['test/**/*.ts', 'src/test/**/*.ts', 'src/**/*.test.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
);
