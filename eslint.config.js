// One lint for the repo; the layering rules of docs/architecture.md §5 are enforced here, not by prose.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import jsdoc from 'eslint-plugin-jsdoc';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noMathRandom = {
  object: 'Math',
  property: 'random',
  message: 'Randomness comes from crypto.getRandomValues / randomUUID / node:crypto.',
};

// Only server/src/access/ decides who may act: elsewhere a role is data to store or show, never a condition.
const roleDecisions = [
  ['BinaryExpression[operator=/^[!=]==?$/] > MemberExpression[property.name="role"]', 'a comparison of a role'],
  ['SwitchStatement > MemberExpression.discriminant[property.name="role"]', 'a switch on a role'],
  ['CallExpression[callee.name=/^(eq|ne)$/] > MemberExpression[object.name="users"][property.name="role"]', 'a condition on users.role'],
].map(([selector, what]) => ({ selector, message: `${what} decides who may act: call a rule of server/src/access/ instead.` }));

// Only server/src/security/events.ts writes security events (coalescing, bounds per source, audit rows).
const securityEventWrites = [
  ['CallExpression[callee.property.name=/^(insert|update)$/] > Identifier[name="securityEvents"]', 'a write to securityEvents'],
  ['TemplateElement[value.raw=/(insert\\s+into|update)\\s+"?security_events/i]', 'SQL writing security_events'],
  ['Literal[value=/(insert\\s+into|update)\\s+"?security_events/i]', 'SQL writing security_events'],
].map(([selector, what]) => ({ selector, message: `${what}: record events with recordEvent() of server/src/security/events.ts.` }));

// The declarations whose exports carry TSDoc: consts (schemas, tables), types, functions.
const documented = ['TSTypeAliasDeclaration', 'TSInterfaceDeclaration', 'VariableDeclaration', 'FunctionDeclaration'];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '**/test-results/**', '**/playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      'no-restricted-properties': ['error', noMathRandom],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The lowest layers import neither the server nor the web app (nor protocol and crypto the client core).
    files: ['packages/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@enclave/server*', '@enclave/web*', '**/server/**', '**/web/**'], message: 'packages/* are below server and web.' },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@enclave/*', '**/server/**', '**/web/**'], message: '@enclave/protocol is the lowest layer.' }] },
      ],
    },
  },
  {
    // The client core runs in the browser and in the server's test client alike: it builds on
    // protocol and crypto only, and network and storage are handed to it.
    files: ['packages/client/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@enclave/(protocol|crypto)$|\\./[\\w-]+$)',
              message: '@enclave/client imports only @enclave/protocol, @enclave/crypto and its own files.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...[
          'fetch',
          'XMLHttpRequest',
          'WebSocket',
          'EventSource',
          'localStorage',
          'sessionStorage',
          'indexedDB',
          'IDBKeyRange',
          'caches',
          'document',
          'window',
        ].map((name) => ({ name, message: '@enclave/client is given its network and storage as interfaces.' })),
      ],
    },
  },
  {
    // docs/architecture.md §5: every export of the protocol says what it is for its callers.
    files: ['packages/protocol/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { jsdoc },
    rules: {
      'jsdoc/require-jsdoc': [
        'error',
        {
          publicOnly: true,
          require: { FunctionDeclaration: true },
          contexts: documented,
          // --fix would insert empty blocks, which say nothing.
          enableFixer: false,
        },
      ],
      'jsdoc/no-blank-blocks': 'error',
      'jsdoc/require-description': ['error', { contexts: documented }],
    },
  },
  {
    // The server's boundaries (docs/architecture.md §5). One rule, no-restricted-syntax, holds both
    // sets of selectors: the blocks below give each module the set that applies to it.
    files: ['server/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...roleDecisions, ...securityEventWrites] },
  },
  {
    // access/ decides; the command-line client only prints the role the server answered.
    files: ['server/src/access/**/*.ts', 'server/src/cli/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...securityEventWrites] },
  },
  {
    files: ['server/src/security/events.ts'],
    rules: { 'no-restricted-syntax': ['error', ...roleDecisions] },
  },
  {
    // A file is read in one sitting (docs/architecture.md §5): past 400 lines, split it by concern.
    files: ['**/*.{ts,tsx}'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // The crypto runs unchanged in browsers: WebCrypto only, outside its tests and vector script.
    files: ['packages/crypto/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', '@enclave/*'], message: 'WebCrypto only in @enclave/crypto.' }] },
      ],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@enclave/server*', '**/server/**'], message: 'The web app talks to the server over the wire only.' }] },
      ],
    },
  },
  {
    // Every e2e test takes `test` from support/test.ts, whose guard fails it on any CSP violation.
    files: ['e2e/**/*.ts'],
    ignores: ['e2e/support/test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@playwright/test',
              importNames: ['test', 'default'],
              message: 'Import test from e2e/support/test.ts: it fails a test on any Content-Security-Policy violation.',
            },
          ],
        },
      ],
    },
  },
  {
    // Only src/net talks to the network.
    files: ['web/src/**/*.{ts,tsx}'],
    ignores: ['web/src/net/**', '**/*.test.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Network calls go through web/src/net.' },
        { name: 'WebSocket', message: 'Network calls go through web/src/net.' },
        { name: 'XMLHttpRequest', message: 'Network calls go through web/src/net.' },
      ],
    },
  },
  {
    // No import cycles: a module that needs something of a module that needs it back means the
    // shared piece belongs in a third module both import. Type-only imports do not count. Nothing
    // imports a test, so no cycle runs through one: tests are not walked, which keeps lint fast.
    files: ['**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.spec.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
);
