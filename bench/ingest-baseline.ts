/**
 * The baseline of `--only ingest`: the write path of an earlier commit, built aside. Its tree
 * (src, bench, test/support) is copied out of git into the bench's scratch folder, this tree's ingest driver
 * (bench/ingest-child.ts) put in it, and the two bundled the way `npm run build` bundles the
 * bench, so the old path runs through the same driver as the new one, in a process of its own.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The tree this round's write path started from (main when the work began). */
export const DEFAULT_BASE = '866a486'

/** A driver run against both trees: its source, the files it brings along, and its bundle's name. */
export interface BaselineDriver {
  entry: string
  copy: readonly string[]
  name: string
}

const INGEST_DRIVER: BaselineDriver = {
  entry: 'bench/ingest-child.ts',
  copy: ['bench/ingest-child.ts', 'bench/search-data.ts', 'test/support/prng.ts'],
  name: 'bench-ingest-child'
}

/** Builds the baseline driver of commit `base` under `dir`; returns the bundle's path. */
export function buildBaseline(base: string, dir: string, driver: BaselineDriver = INGEST_DRIVER): string {
  const repo = process.cwd()
  const tree = join(dir, 'tree')
  mkdirSync(tree, { recursive: true })
  const archive = execFileSync('git', ['archive', '--format=tar', base, 'src', 'bench', 'test/support', 'package.json'], {
    cwd: repo,
    maxBuffer: 512 * 1024 * 1024
  })
  execFileSync('tar', ['-x', '-C', tree], { input: archive })
  // The same driver and the same generated calls as this tree's.
  for (const f of driver.copy) copyFileSync(join(repo, f), join(tree, f))
  // The bundle resolves better-sqlite3 (and the worker threads' copy of it) from here.
  symlinkSync(resolve(repo, 'node_modules'), join(tree, 'node_modules'), 'dir')
  const config = join(tree, 'vite.baseline.config.mjs')
  writeFileSync(
    config,
    `import { builtinModules } from 'node:module'
import pkg from './package.json' with { type: 'json' }
const names = [...builtinModules, ...builtinModules.map((m) => 'node:' + m), ...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]
const external = names.map((n) => new RegExp('^' + n.replace(/[/\\\\^$*+?.()|[\\]{}]/g, '\\\\$&') + '(/.*)?$'))
export default {
  build: {
    ssr: true, target: 'node20', outDir: 'out', emptyOutDir: true, minify: false,
    rollupOptions: { input: { '${driver.name}': '${driver.entry}' }, external,
      output: { format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: 'chunks/[name]-[hash].mjs' } }
  }
}
`
  )
  execFileSync(process.execPath, [join(repo, 'node_modules/vite/bin/vite.js'), 'build', '-c', config, '--logLevel', 'warn'], {
    cwd: tree,
    stdio: ['ignore', 'inherit', 'inherit']
  })
  return join(tree, 'out', `${driver.name}.mjs`)
}
