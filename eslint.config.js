// The dependency direction of STYLE.md, enforced: core → ports → nothing; adapters implement
// ports; hosts wire; renderer and electron see only engine/api.
import tseslint from 'typescript-eslint';

const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'renderer/dist/**'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // General rule first: a later block's rule replaces an earlier one for the files both match.
  {
    files: ['engine/**/*.ts'],
    rules: restrict(['electron', '**/renderer/**', '**/electron/**'], 'nothing in engine/ imports Electron or the UI.'),
  },
  {
    files: ['engine/core/**/*.ts'],
    rules: restrict(
      ['node:*', 'fs', 'child_process', 'os', 'path', 'better-sqlite3', 'kysely', 'mysql2', 'ioredis', 'electron', 'ws',
        '**/adapters/**', '**/server/**', '**/hosts/**'],
      'engine/core is pure logic: it may import only engine/ports, engine/api and pure libraries.',
    ),
  },
  {
    files: ['engine/ports/**/*.ts'],
    rules: restrict(
      ['node:*', 'better-sqlite3', 'kysely', 'mysql2', 'ioredis', 'electron', '**/core/**', '**/adapters/**', '**/server/**', '**/hosts/**'],
      'engine/ports are interfaces: no drivers, no implementations.',
    ),
  },
  {
    files: ['engine/api/**/*.ts'],
    rules: restrict(
      ['node:*', 'better-sqlite3', 'kysely', 'electron', '**/core/**', '**/ports/**', '**/adapters/**', '**/server/**', '**/hosts/**'],
      'engine/api is the public contract: types and schemas only.',
    ),
  },
  {
    files: ['engine/adapters/**/*.ts'],
    rules: restrict(['electron', '**/renderer/**', '**/server/**', '**/hosts/**'], 'adapters implement ports; they do not know hosts or servers.'),
  },
  {
    files: ['renderer/**/*.{ts,tsx}', 'electron/**/*.ts'],
    // Two pure modules of core are shared so that the designer refuses the same cycles and reads
    // the same durations as the engine.
    rules: restrict(['**/engine/core/**', '!**/engine/core/dag.ts', '!**/engine/core/duration.ts', '**/engine/ports/**', '**/engine/adapters/**', '**/engine/server/**', '**/engine/hosts/**'],
      'renderer and electron import only engine/api (and the pure engine/core/dag.ts and duration.ts).'),
  },
);
