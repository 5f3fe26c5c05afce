// The dependency direction of STYLE.md, enforced: core → ports → nothing; adapters implement
// ports; hosts wire; renderer and electron see only engine/api.
import tseslint from 'typescript-eslint';

const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

// Two pure modules of core are shared so that the designer refuses the same cycles and reads the
// same durations as the engine. A regex, because a glob cannot let a file of an excluded folder in.
const RENDERER_ENGINE_PATTERNS = [
  {
    regex: '/engine/core/(?!model/(dag|duration)\\.ts$)',
    message: 'renderer and electron import only engine/api (and the pure engine/core/model/dag.ts and duration.ts).',
  },
  {
    group: ['**/engine/ports/**', '**/engine/adapters/**', '**/engine/server/**', '**/engine/hosts/**'],
    message: 'renderer and electron import only engine/api.',
  },
];

const ENGINE_CLIENT_PATTERN = {
  regex: '(^|/)engine-client(/|$)',
  message: 'call the engine through the hooks of renderer/src/server-state/, not the engine client.',
};

function serverStateRule({ files, ignores = [], patterns }) {
  return {
    files,
    ignores,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns,
          paths: [
            {
              name: '@tanstack/react-query',
              importNames: [
                'useQuery',
                'useQueries',
                'useSuspenseQuery',
                'useInfiniteQuery',
                'useMutation',
                'useQueryClient',
              ],
              message: 'read and change server state through the hooks of renderer/src/server-state/.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "Property[key.name='queryKey']",
          message: 'query keys are made by keys in renderer/src/server-state/keys.ts.',
        },
      ],
    },
  };
}

const CORE_IMPURE = [
  'node:*',
  'fs',
  'child_process',
  'os',
  'path',
  'better-sqlite3',
  'kysely',
  'mysql2',
  'ioredis',
  'electron',
  'ws',
  '**/adapters/**',
  '**/server/**',
  '**/hosts/**',
];
const CORE_MESSAGE = 'engine/core is pure logic: it may import only engine/ports, engine/api and pure libraries.';

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
    rules: restrict(CORE_IMPURE, CORE_MESSAGE),
  },
  // core/model/ holds the pure decisions (cron, misfire, DAG, routing, backoff, backstops…): they
  // know the API's and ports' types and each other, never a service of another room.
  {
    files: ['engine/core/model/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: CORE_IMPURE, message: CORE_MESSAGE },
            {
              regex: '^\\.\\./(?!\\.\\./)',
              message:
                'engine/core/model is the pure decisions: it imports only model/, engine/ports and engine/api, no service room.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['engine/ports/**/*.ts'],
    rules: restrict(
      [
        'node:*',
        'better-sqlite3',
        'kysely',
        'mysql2',
        'ioredis',
        'electron',
        '**/core/**',
        '**/adapters/**',
        '**/server/**',
        '**/hosts/**',
      ],
      'engine/ports are interfaces: no drivers, no implementations.',
    ),
  },
  {
    files: ['engine/api/**/*.ts'],
    rules: restrict(
      [
        'node:*',
        'better-sqlite3',
        'kysely',
        'electron',
        '**/core/**',
        '**/ports/**',
        '**/adapters/**',
        '**/server/**',
        '**/hosts/**',
      ],
      'engine/api is the public contract: types and schemas only.',
    ),
  },
  {
    files: ['engine/adapters/**/*.ts'],
    rules: restrict(
      ['electron', '**/renderer/**', '**/server/**', '**/hosts/**'],
      'adapters implement ports; they do not know hosts or servers.',
    ),
  },
  {
    files: ['renderer/**/*.{ts,tsx}', 'electron/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: RENDERER_ENGINE_PATTERNS }] },
  },
  // The UI's server state is in renderer/src/server-state/: components get their reads and
  // changes from its hooks and its keys, so no query key is spelled out in a component, and no
  // component calls the engine client itself. The app shell (boot, session, frame) and the
  // desktop shell open and watch the connection, so they may import engine-client/.
  serverStateRule({
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: ['renderer/src/server-state/**', 'renderer/src/engine-client/**'],
    patterns: [...RENDERER_ENGINE_PATTERNS, ENGINE_CLIENT_PATTERN],
  }),
  serverStateRule({
    files: ['renderer/src/app/**/*.{ts,tsx}', 'renderer/src/desktop/**/*.{ts,tsx}', 'renderer/src/main.tsx'],
    patterns: RENDERER_ENGINE_PATTERNS,
  }),
  // Component tests pair the real engine with the UI in one process (renderer/src/test-support/).
  {
    files: ['renderer/**/*.test.tsx', 'renderer/src/test-support/**'],
    rules: { 'no-restricted-imports': 'off', 'no-restricted-syntax': 'off' },
  },
);
