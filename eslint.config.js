// One linter for the whole tree: typescript-eslint's type-aware recommended rules, and
// the layering of docs/architecture.md (a layer imports only from the layers below it).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The server's layers, top to bottom. */
const layers = ['server', 'http', 'audit', 'auth', 'registry', 'apis', 'storage', 'machinery'];
/**
 * Beside the server: the client layer of any Kubernetes API server (kubeconfig, transport,
 * informer) at machinery's level, and on it the typed client and the sample controller.
 */
const beside = { kubeclient: ['machinery'], client: ['kubeclient', 'machinery'], controller: ['client', 'kubeclient', 'machinery'] };
/** The server's layers that talk to the main API server through the client layer (the server itself may import anything). */
const kubeclientUsers = ['http', 'auth', 'registry'];
const folders = [...layers, 'openapi', ...Object.keys(beside)];

/** The folders a file in `layer` may not import from. */
function forbiddenFor(layer) {
  if (layer in beside) return folders.filter((f) => f !== layer && !beside[layer].includes(f));
  const below = layers.slice(layers.indexOf(layer) + 1);
  // openapi/ builds documents from the groups: between http and registry.
  const allowed = new Set([layer, ...below, ...(layer === 'http' ? ['openapi'] : []), ...(kubeclientUsers.includes(layer) ? ['kubeclient'] : [])]);
  return folders.filter((f) => !allowed.has(f));
}

const layering = [...layers.filter((l) => l !== 'server'), 'openapi', ...Object.keys(beside)].map((layer) => {
  const forbidden = layer === 'openapi' ? ['server', 'http', 'audit', 'auth', 'client', 'controller', 'kubeclient'] : forbiddenFor(layer);
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
);
