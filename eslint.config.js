// typescript-eslint's recommended rules over src/, test/ and bench/ (issue 28: lint as a habit, checked by npm test).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'tools/mcp-clients/', '.bench-tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node's globals, for the .mjs bench scripts (in .ts files TypeScript checks names itself).
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'URL',
          'Buffer',
          'performance',
          'global',
          'setTimeout',
          'clearTimeout',
          'setImmediate',
        ].map((name) => [name, 'readonly']),
      ),
    },
    rules: {
      // Binary and NUL detection matches control characters on purpose.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
