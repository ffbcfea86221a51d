// One linter for the whole tree: typescript-eslint's type-aware recommended rules, and
// the layering of docs/architecture.md (a layer imports only from the layers below it).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The server's layers, top to bottom. */
const layers = ['server', 'http', 'audit', 'auth', 'registry', 'apis', 'storage', 'machinery'];
/** Beside the server: the typed client and the sample controller, clients of the API. */
const beside = { client: ['machinery'], controller: ['client', 'machinery'] };
const folders = [...layers, 'openapi', ...Object.keys(beside)];

/** The folders a file in `layer` may not import from. */
function forbiddenFor(layer) {
  if (layer in beside) return folders.filter((f) => f !== layer && !beside[layer].includes(f));
  const below = layers.slice(layers.indexOf(layer) + 1);
  // openapi/ builds documents from the groups (apis/ and machinery/ only): http/ may use it.
  const allowed = new Set([layer, ...below, ...(layer === 'http' ? ['openapi'] : [])]);
  return folders.filter((f) => !allowed.has(f));
}

const layering = [...layers.filter((l) => l !== 'server'), 'openapi', ...Object.keys(beside)].map((layer) => {
  const forbidden = layer === 'openapi' ? ['server', 'http', 'audit', 'auth', 'registry', 'storage', 'client', 'controller'] : forbiddenFor(layer);
  return {
    files: [`src/${layer}/**/*.ts`],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: forbidden.map((f) => `**/${f}/**`), message: `src/${layer}/ may not import this layer (see docs/architecture.md).` }] },
      ],
    },
  };
});

/**
 * Inside http/, the sub-folders are layers too, top to bottom: a handler uses filters' audit
 * glue, responses, streams, requests and serializers; a serializer knows none of them.
 */
const httpFolders = ['handlers', 'filters', 'discovery', 'streaming', 'response', 'request', 'serializers'];
const httpLayering = httpFolders.map((folder, i) => ({
  files: [`src/http/${folder}/**/*.ts`],
  ignores: ['**/*.test.ts'],
  rules: {
    // One rule per file: it repeats the http layer's groups, which it replaces.
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: forbiddenFor('http').map((f) => `**/${f}/**`), message: 'src/http/ may not import this layer (see docs/architecture.md).' },
          {
            group: httpFolders.slice(0, i).map((f) => `**/${f}/**`),
            message: `src/http/${folder}/ may not import this folder of http/ (see docs/architecture.md).`,
          },
        ].filter((p) => p.group.length > 0),
      },
    ],
  },
}));

/**
 * machinery/kubeclient/ is shipped in the client package beside client/ and nothing else of
 * the repository, so it imports only from itself.
 */
const kubeclientAlone = {
  files: ['src/machinery/kubeclient/**/*.ts'],
  ignores: ['**/*.test.ts'],
  rules: {
    // One rule per file: it repeats machinery's groups, which it replaces.
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: forbiddenFor('machinery').map((f) => `**/${f}/**`), message: 'src/machinery/ may not import this layer (see docs/architecture.md).' },
          { group: ['../*'], message: 'src/machinery/kubeclient/ ships in the client package alone: it imports only from itself.' },
        ],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'src/client/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.ts'],
    rules: {
      // `_name` marks what a signature needs and a body does not use; a rest sibling leaves a field out.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // An async method without await still implements an async interface.
      '@typescript-eslint/require-await': 'off',
      // Node's servers take Koa's promise-returning callback; Koa handles its rejections.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
  // Tests read JSON bodies as `any` on purpose: the wire is untyped.
  {
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  ...layering,
  // After the http layer's rule, which these replace for its sub-folders.
  ...httpLayering,
  kubeclientAlone,
);
