#!/usr/bin/env node
/**
 * Moves source files to the folders that say what they hold, and rewrites everything that
 * names them, so that the move can be run again on a tree that changed meanwhile:
 *
 *   node scripts/move-files.mjs            # move and rewrite (git mv: history follows)
 *   node scripts/move-files.mjs --dry-run  # print what it would do, change nothing
 *   node scripts/move-files.mjs --check    # exit 1 when anything is left to do
 *
 * 1. Each tracked file is placed by MOVES: an entry for the file itself wins, else the longest
 *    folder entry (ending in "/") that holds it: a file the table does not name, in a folder
 *    that moves as a whole, moves with it; in a folder that is split, it stays where it is.
 * 2. Every relative specifier of a module in src/ test/ bench/ scripts/ and the root configs
 *    (import/export … from, import(), side-effect imports, vi.mock()/importActual(), require(),
 *    new URL(…, import.meta.url), /// <reference path>) is resolved the way the code uses it —
 *    `./x` to x.ts, x.mts, x.vue, x/index.ts; `./x.js` to x.ts — and written anew when the
 *    importer or the target moved, in the same form (extension or not, folder or index).
 *    A specifier that no longer resolves but names a moved file's old place is repaired too.
 * 3. Mentions of the old paths (`src/core/search/plan.ts`, `core/search/plan.ts`, `src/service`)
 *    are rewritten in the configs, docs, README and .ci/run, and in comments and strings of the
 *    code, then the few TEXT_EDITS that are not paths (the lint's layer names) are made.
 *
 * Idempotent: a second run finds nothing at the old places and changes nothing. Plain Node,
 * no packages: it runs before `npm ci` as well as after.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { posix as path } from 'node:path'
import { fileURLToPath } from 'node:url'

const into = (dir, names) => names.map((n) => [`${dir.replace(/\/[^/]+\/$/, '/')}${n}.ts`, `${dir}${n}.ts`])

/** Old path or folder (ending in "/") → new one. */
export const MOVES = [
  // The browser-tab shell is a peer of the Electron shell; src/host keeps what both share.
  ['src/host/web/', 'src/web/'],
  ['src/host/web/platform.ts', 'src/web/browser-host.ts'],
  ['test/unit/host/browser-shell.test.ts', 'test/unit/web/browser-shell.test.ts'],
  ['test/unit/host/client-script.test.ts', 'test/unit/web/client-script.test.ts'],
  ['test/unit/host/gate.test.ts', 'test/unit/web/gate.test.ts'],
  ['test/integration/app/browser-platform.test.ts', 'test/integration/app/browser-host.test.ts'],
  // The reference service, named as such: "service" alone is the real API it stands in for.
  ['src/service/', 'src/reference-service/'],
  ['test/unit/service/', 'test/unit/reference-service/'],
  ['test/integration/service/', 'test/integration/reference-service/'],
  // "platform" means the OS seams of src/core/platform only; the controller's ports are the host's.
  ['src/core/app/platform.ts', 'src/core/app/host-ports.ts'],
  // Local search by concern.
  ...into('src/core/search/query/', ['compile', 'sql', 'query-sql', 'catalog', 'record-terms', 'folded-values', 'matched-in']),
  ...into('src/core/search/plan/', ['plan', 'page-plan']),
  ...into('src/core/search/paging/', [
    'pager',
    'date-page',
    'column-page',
    'window-page',
    'sorted-page',
    'date-order',
    'anchors',
    'selection',
    'export-iteration',
    'review-page'
  ]),
  ...into('src/core/search/memory/', [
    'bitmap-eval',
    'bits',
    'columns',
    'view-columns',
    'match-set',
    'prefix-sets',
    'number-ranks',
    'relevance-rank',
    'search-warm-up'
  ]),
  ...into('src/core/search/review/', ['review-annotations', 'review-filter', 'review-set']),
  // The account's SQLite file by concern.
  ...into('src/core/cache/ingest/', [
    'ingest',
    'bulk',
    'fts-buffer',
    'index-rows',
    'known-calls',
    'pulled',
    'deferred-btrees',
    'deferred-index',
    'deferred-indexing',
    'reindex',
    'wal-checkpointer'
  ]),
  ...into('src/core/cache/schema/', ['migrations', 'migrate', 'cache-db']),
  ...into('src/core/cache/call-types/', ['call-type-catalog', 'call-type-file', 'call-type-names']),
  ...into('src/core/cache/sync-state/', ['sync-runs', 'sync-scopes', 'coverage'])
]

/** Files of the split folders that stay where they are (any other is reported). */
export const STAYS = [
  ...['index', 'local-search', 'search-context', 'coverage', 'count', 'summaries', 'insight-series', 'data-watch'].map(
    (n) => `src/core/search/${n}.ts`
  ),
  ...['index', 'call-cache', 'records', 'totals', 'fold', 'numeric', 'worker-connection', 'change-journal'].map(
    (n) => `src/core/cache/${n}.ts`
  ),
  ...['account-runtime', 'app-state', 'connectivity', 'controller', 'saved-searches', 'tasks', 'team-schedule'].map(
    (n) => `src/core/app/${n}.ts`
  )
]

/** Edits that are not paths, made after the paths: [file, old text, new text]. Each is idempotent. */
export const TEXT_EDITS = [
  ['eslint.config.mjs', "'layer:service'", "'layer:reference-service'"],
  ['test/unit/architecture/layers.test.ts', "from '../service/index'", "from '../reference-service/index'"],
  ['test/unit/architecture/layers.test.ts', "from '../../host/web/serve'", "from '../../web/serve'"],
  [
    'test/unit/architecture/layers.test.ts',
    `['src/web/x.ts', "import * as m from '../../main/app-context'`,
    `['src/web/x.ts', "import * as m from '../main/app-context'`
  ]
]

/** Folders whose modules' specifiers are rewritten (and the configs at the root). */
const CODE_DIRS = ['src/', 'test/', 'bench/', 'scripts/']
const CODE_EXT = /\.(ts|mts|cts|js|mjs|cjs|vue)$/
/** Files whose path mentions are rewritten besides the code. */
const TEXT_FILE =
  /^(package\.json|electron\.vite\.config\.[cm]?[jt]s|vite[^/]*\.config\.[cm]?[jt]s|vitest[^/]*\.config\.[cm]?[jt]s|tsconfig[^/]*\.json|eslint\.config\.[cm]?js|electron-builder\.yml|\.prettierignore|\.ci\/run|docs\/[^/]+\.md|README\.md)$/
const SELF = 'scripts/move-files.mjs'

/** How `./x` resolves, in the order the bundlers and tsc try. */
const ADD_EXT = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.vue', '.js', '.mjs', '.cjs', '.json']
const INDEX = ['/index.ts', '/index.mts', '/index.js', '/index.mjs', '/index.vue']
const JS_TO_TS = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] }

/** The place of `p` under MOVES (itself when nothing moves it). */
export function placeOf(p, moves = MOVES) {
  let best = null
  for (const [from, to] of moves) {
    if (from.endsWith('/')) {
      if (p.startsWith(from) && (!best || (best.dir && from.length > best.from.length))) best = { from, to, dir: true }
    } else if (p === from) best = { from, to, dir: false }
  }
  if (!best) return p
  return best.dir ? best.to + p.slice(best.from.length) : best.to
}

/** A relative specifier resolved against `files`: the target and the form to write it in again. */
function resolveSpec(fromFile, spec, files) {
  const raw = path.normalize(path.join(path.dirname(fromFile), spec))
  if (files.has(raw)) return { target: raw, form: 'exact' }
  const ext = path.extname(raw)
  for (const alt of JS_TO_TS[ext] ?? []) {
    const t = raw.slice(0, -ext.length) + alt
    if (files.has(t)) return { target: t, form: 'js', ext, alt }
  }
  for (const e of ADD_EXT) if (files.has(raw + e)) return { target: raw + e, form: 'bare', ext: e }
  for (const i of INDEX) if (files.has(raw + i)) return { target: raw + i, form: 'index', ext: i }
  return null
}

/** The specifier for `target` (moved to `newTarget`) from `newFile`, in the form it was written. */
function specFor(newFile, r, newTarget) {
  let t = newTarget
  if (r.form === 'js') t = t.slice(0, -r.alt.length) + r.ext
  else if (r.form === 'bare' || r.form === 'index') t = t.slice(0, -r.ext.length)
  let s = path.relative(path.dirname(newFile), t)
  if (!s.startsWith('../')) s = `./${s}`
  if (r.form === 'index' && r.spec.endsWith('/')) s += '/'
  return s
}

/**
 * Relative specifiers in module code: `from '…'`, `import '…'`, `import('…')`, the mocks and
 * require of tests, `new URL('…', import.meta.url)`, triple-slash references.
 */
const SPEC =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\b(?:mock|doMock|unmock|importActual|importMock|require)\s*\(\s*|\bnew\s+URL\s*\(\s*|<reference\s+path\s*=\s*)(['"])(\.{1,2}\/[^'"\n]*?)\2/g

function rewriteSpecs(file, text, ctx) {
  const newFile = ctx.place(file)
  return text.replace(SPEC, (all, lead, q, specWithQuery, offset) => {
    if (lead.startsWith('new') && !/^\s*,\s*import\.meta\.url/.test(text.slice(offset + all.length))) return all
    const [spec, query = ''] = specWithQuery.split(/(?=\?)/)
    const bare = spec.replace(/\/$/, '')
    let r = resolveSpec(file, bare, ctx.files)
    let newTarget = r ? ctx.place(r.target) : undefined
    // Stale: written against the old layout (by the importer at its old place, or naming a
    // target's old place) after the move, in a branch merged later.
    for (const base of r ? [] : [file, ...(ctx.oldOf.get(file) ?? [])]) {
      r = resolveSpec(base, bare, ctx.files)
      if (r && base !== file) newTarget = ctx.place(r.target)
      else if ((r = resolveSpec(base, bare, ctx.oldPlaces))) newTarget = ctx.oldPlaces.get(r.target)
      if (r) break
    }
    if (!r) return all
    if (newFile === file && newTarget === r.target) return all
    return `${lead}${q}${specFor(newFile, { ...r, spec }, newTarget)}${query}${q}`
  })
}

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Old path mentions → new ones: every moved file (and its form without `src/`), every folder
 * that moved whole. Each old path must be gone from the tree for its mention to be rewritten.
 */
function mentionRewriter(pairs) {
  const map = new Map()
  for (const [from, to] of pairs) {
    map.set(from, to)
    // `core/search/plan.ts` in prose means src/core/search/plan.ts; a bare `service` does not.
    if (from.startsWith('src/') && from.slice(4).includes('/')) map.set(from.slice(4), to.slice(4))
  }
  if (map.size === 0) return (s) => s
  const keys = [...map.keys()].sort((a, b) => b.length - a.length)
  // Not inside a longer name: no word character, dot or dash on either side, and a form
  // without `src/` not preceded by a slash (it would be the tail of a longer path).
  const re = new RegExp(`(?<![\\w.-])(?:(src/)|(?<!/))(${keys.map((k) => esc(k.replace(/^src\//, ''))).join('|')})(?![\\w-]|\\.[a-z])`, 'g')
  return (text) =>
    text.replace(re, (all, src, rest) => {
      const to = map.get((src ?? '') + rest)
      if (to !== undefined) return to
      // A path without `src/` that only moved in its `src/` form.
      const full = map.get(`src/${rest}`)
      return src && full !== undefined ? full : all
    })
}

function git(args, opts = {}) {
  return execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts })
}

function main() {
  const argv = process.argv.slice(2)
  const dry = argv.includes('--dry-run') || argv.includes('--check')
  const check = argv.includes('--check')
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  process.chdir(root)
  const tracked = git(['ls-files', '-z'])
    .split('\0')
    .filter((f) => f && existsSync(f) && statSync(f).isFile())
  const files = new Set(tracked)
  const place = (p) => placeOf(p, MOVES)

  const moves = tracked.filter((f) => place(f) !== f && f !== SELF).map((f) => [f, place(f)])
  const after = new Set(tracked.map((f) => (f === SELF ? f : place(f))))
  if (after.size !== tracked.length) throw new Error('two files would land on the same path')
  for (const [from, to] of moves) if (files.has(to)) throw new Error(`${to} exists: ${from} cannot move there`)

  // Every old place the table names whose file is gone, with its new place: for specifiers and
  // mentions written against the old layout after the move (a branch merged later).
  const oldPlaces = new Map(moves)
  for (const f of after) {
    for (const [from, to] of MOVES) {
      const old = from.endsWith('/') ? (f.startsWith(to) ? from + f.slice(to.length) : null) : f === to ? from : null
      if (old !== null && old !== f && !after.has(old) && place(old) === f) oldPlaces.set(old, f)
    }
  }
  const oldOf = new Map()
  for (const [from, to] of oldPlaces) oldOf.set(to, [...(oldOf.get(to) ?? []), from])

  // Mentions: the moved files, the table's files gone from their old place, the folders gone whole.
  const gone = (p) => !after.has(p) && ![...after].some((f) => f.startsWith(p.endsWith('/') ? p : `${p}/`))
  const pairs = []
  for (const [from, to] of oldPlaces) if (gone(from)) pairs.push([from, to])
  for (const [from, to] of MOVES) if (from.endsWith('/') && gone(from)) pairs.push([from.slice(0, -1), to.slice(0, -1)])
  const mentions = mentionRewriter(pairs)

  const ctx = { files, oldPlaces, oldOf, place }
  const changed = new Map()
  for (const f of tracked) {
    if (f === SELF) continue
    const isCode = CODE_EXT.test(f) && (CODE_DIRS.some((d) => f.startsWith(d)) || !f.includes('/'))
    if (!isCode && !TEXT_FILE.test(f)) continue
    const before = readFileSync(f, 'utf8')
    let text = isCode ? rewriteSpecs(f, before, ctx) : before
    text = mentions(text)
    for (const [file, from, to] of TEXT_EDITS) if (file === f || file === place(f)) text = text.split(from).join(to)
    if (text !== before) changed.set(f, text)
  }

  for (const [from, to] of moves) console.log(`move    ${from} -> ${to}`)
  for (const f of changed.keys()) console.log(`rewrite ${place(f)}`)
  // Files directly in a folder the table splits, that it neither moves nor keeps: placed by hand.
  const split = new Set(MOVES.filter(([from]) => !from.endsWith('/') && from.startsWith('src/')).map(([from]) => path.dirname(from)))
  for (const f of tracked) {
    if (
      split.has(path.dirname(f)) &&
      place(f) === f &&
      !STAYS.includes(f) &&
      !MOVES.some(([, to]) => to === f) &&
      !after.has(f.replace(/\.ts$/, '/index.ts'))
    ) {
      console.log(`stays   ${f} (in a folder that is split, named nowhere in MOVES or STAYS)`)
    }
  }
  if (moves.length === 0 && changed.size === 0) console.log('nothing to do')
  if (check) process.exit(moves.length === 0 && changed.size === 0 ? 0 : 1)
  if (dry) return

  for (const [from, to] of moves) {
    mkdirSync(path.dirname(to), { recursive: true })
    git(['mv', from, to])
  }
  for (const [f, text] of changed) writeFileSync(place(f), text)
  console.log(`${moves.length} files moved, ${changed.size} files rewritten`)
  // A longer path can push a line past the print width: the rewritten files are formatted
  // again, where the project's Prettier is installed.
  const prettier = 'node_modules/.bin/prettier'
  if (changed.size > 0 && existsSync(prettier)) {
    execFileSync(prettier, ['--write', '--log-level', 'warn', ...[...changed.keys()].map(place)], { stdio: 'inherit' })
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
