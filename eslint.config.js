// ESLint flat config: typescript-eslint's recommended rules over the whole tree, React's hooks rules for the
// extension, and eslint-config-prettier last so that layout is Prettier's business alone (`npm run format`).
// Not type-aware: on this tree the type-aware rules found no bug that these and `npm run typecheck` miss (no floating
// promise, for one), and took about three times as long.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Generated, installed or runtime files (.gitignore lists the same), and the bundled data.
  globalIgnores([
    '**/node_modules/',
    '.output/',
    '.wxt/',
    'data/',
    'coverage/',
    'test-results/',
    '.scratch/',
    'server/postcodes/bundled/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // An unused binding is a mistake unless its name says it is deliberate (`_req`, `(_, i) =>`), or it is the
      // rest of a destructuring that drops keys (`const { secret, ...rest } = row`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // `a ?? (await b)` and `ok && run()` as statements are deliberate; a bare `x;` or `(a, b = 1);` is not.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true }],
      // The code compares with === everywhere; `== null` stays allowed for "null or undefined".
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // Tests read JSON answers whose shape each assertion spells out; typing every body would repeat the zod schemas.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The React code: the extension's (options page, popup, result view), the console's and the components both share.
    files: ['extension/**/*.{ts,tsx}', 'console/**/*.{ts,tsx}', 'ui/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // A file or function past these sizes has stopped being about one thing (issue #24): split it by concern.
    files: ['server/**/*.ts', 'extension/**/*.{ts,tsx}', 'console/**/*.{ts,tsx}', 'ui/**/*.{ts,tsx}'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  prettier,
  {
    // After eslint-config-prettier, which switches `curly` off: the code writes an unbraced body only on the line of
    // its `if`/`for`/`else`; where Prettier has to wrap such a line, `eslint --fix` adds the braces.
    rules: { curly: ['error', 'multi-line'] },
  },
);
