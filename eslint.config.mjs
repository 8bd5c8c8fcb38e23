// @ts-check
import tseslint from 'typescript-eslint'
import pluginVue from 'eslint-plugin-vue'
import vueParser from 'vue-eslint-parser'
import prettierOff from 'eslint-config-prettier/flat'

/**
 * Layer directions, enforced (docs/architecture.md):
 *   src/shared   -> zod, luxon only
 *   src/core     -> shared; never electron, vue or the other layers
 *   src/host     -> shared, core, the reference service (the demo); plain Node, never electron
 *   src/main     -> shared, core, host (and electron): the desktop shell
 *   src/web      -> shared, core, host, the reference service (the demo): the browser-tab shell
 *   src/preload  -> shared/ipc/names only (and electron)
 *   src/renderer -> shared only; never electron, node or core
 *   src/reference-service  -> nothing of ours: the reference service is written from the spec alone
 *   src/cli      -> shared, core, host, web (`callsight serve`)
 */
const layer = (name) => [`**/${name}`, `**/${name}/**`, `@/${name}/**`]
const forbid = (names, message) => ({
  group: names.flatMap((n) => (n.startsWith('layer:') ? layer(n.slice(6)) : [n, `${n}/**`])),
  message
})
const restrict = (...patterns) => ['error', { patterns }]

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'worker_threads', 'stream']

export default tseslint.config(
  {
    ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', 'native/**', 'coverage/**', '**/*.d.ts.map']
  },
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parser: vueParser, parserOptions: { parser: tseslint.parser, sourceType: 'module' } }
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      // User text is never rendered as HTML.
      'vue/no-v-html': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: "AssignmentExpression[left.property.name='innerHTML']", message: 'Never render text as HTML.' },
        { selector: "AssignmentExpression[left.property.name='outerHTML']", message: 'Never render text as HTML.' },
        { selector: "CallExpression[callee.property.name='insertAdjacentHTML']", message: 'Never render text as HTML.' }
      ]
    }
  },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(
          [
            'layer:core',
            'layer:host',
            'layer:main',
            'layer:web',
            'layer:preload',
            'layer:renderer',
            'layer:reference-service',
            'layer:cli'
          ],
          'src/shared depends on no other layer.'
        ),
        forbid(['electron', 'vue', 'pinia', 'better-sqlite3', ...nodeBuiltins], 'src/shared imports only zod and luxon.')
      )
    }
  },
  {
    files: ['src/core/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(
          ['electron', 'electron-store', 'vue', 'pinia', 'primevue'],
          'src/core is plain Node: platform needs come in through interfaces.'
        ),
        forbid(
          ['layer:host', 'layer:main', 'layer:web', 'layer:preload', 'layer:renderer', 'layer:reference-service', 'layer:cli'],
          'src/core may import only src/shared.'
        )
      )
    }
  },
  {
    files: ['src/host/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(
          ['electron', 'electron-store', 'vue', 'pinia', 'primevue'],
          'src/host is plain Node, shared by the desktop app and `callsight serve`.'
        ),
        forbid(
          ['layer:main', 'layer:web', 'layer:preload', 'layer:renderer', 'layer:cli'],
          'src/host binds src/core for the shells; it imports no shell.'
        )
      )
    }
  },
  {
    files: ['src/main/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(['layer:renderer', 'layer:preload', 'layer:web', 'layer:cli'], 'src/main binds src/shared to src/core.'),
        forbid(['vue', 'pinia', 'primevue'], 'src/main is not a UI.')
      )
    }
  },
  {
    files: ['src/web/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(
          ['electron', 'electron-store', 'vue', 'pinia', 'primevue'],
          'The browser-tab shell is plain Node: the page is the renderer.'
        ),
        forbid(
          ['layer:main', 'layer:preload', 'layer:renderer', 'layer:cli'],
          'src/web binds src/host and src/core for a browser tab; it imports no other shell.'
        )
      )
    }
  },
  {
    files: ['src/preload/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(
          [
            'layer:core',
            'layer:main',
            'layer:web',
            'layer:renderer',
            'layer:reference-service',
            'layer:cli',
            'zod',
            'luxon',
            ...nodeBuiltins
          ],
          'The preload only builds window.api from the channel names.'
        )
      )
    }
  },
  {
    files: ['src/renderer/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(['electron', 'better-sqlite3', 'electron-store', ...nodeBuiltins], 'The renderer talks to the app only through window.api.'),
        forbid(
          ['layer:core', 'layer:host', 'layer:main', 'layer:web', 'layer:preload', 'layer:reference-service', 'layer:cli'],
          'src/renderer imports only src/shared.'
        )
      )
    }
  },
  {
    files: ['src/reference-service/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(
          ['layer:core', 'layer:shared', 'layer:host', 'layer:main', 'layer:web', 'layer:preload', 'layer:renderer', 'layer:cli'],
          'The reference service is written from the spec and shares no code with the client.'
        ),
        forbid(['electron', 'vue'], 'The reference service is plain Node.')
      )
    }
  },
  {
    files: ['src/cli/**'],
    rules: {
      'no-restricted-imports': restrict(
        forbid(['electron', 'electron-store', 'vue'], 'The CLI runs under plain Node.'),
        forbid(
          ['layer:main', 'layer:preload', 'layer:renderer', 'layer:reference-service'],
          'The CLI is a front end over src/core (and src/host, src/web for `serve`).'
        )
      )
    }
  },
  // Layout is Prettier's (`npm run format`); ESLint keeps to correctness and the layer rules.
  prettierOff
)
