import { builtinModules } from 'node:module'
import { readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { build } from 'vite'
import { resolveConfig } from 'electron-vite'

// The Electron main bundle is CommonJS, and electron-store is ESM-only: it is bundled, not
// left as require("electron-store") (docs/shell.md). conf, the library under it, became a
// dependency of its own for the browser mode, which would make electron-vite leave it as a
// require() too; it is bundled with electron-store. Built here from electron.vite.config.ts,
// main only, into a folder of its own (a parallel build may empty out/).

const root = resolve(import.meta.dirname, '../../..')
const outDir = join(root, 'node_modules', '.tmp', `callsight-main-test-${process.pid}`)
afterAll(() => rmSync(outDir, { recursive: true, force: true }))

describe('the Electron main bundle', () => {
  it('bundles electron-store and conf instead of requiring them', async () => {
    const { config } = await resolveConfig({ configFile: join(root, 'electron.vite.config.ts'), logLevel: 'warn' }, 'build', 'production')
    const main = config?.main
    if (!main) throw new Error('electron.vite.config.ts has no main build')
    await build({ ...main, configFile: false, logLevel: 'warn', build: { ...main.build, outDir, emptyOutDir: true, watch: null } })
    const bundle = readFileSync(join(outDir, 'index.js'), 'utf8')
    const required = [...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1] ?? '')
    const packages = [
      ...new Set(required.filter((n) => !n.startsWith('node:') && !n.startsWith('.') && !builtinModules.includes(n) && n !== 'electron'))
    ]
    expect(packages).toContain('better-sqlite3')
    expect(packages).not.toContain('electron-store')
    expect(packages).not.toContain('conf')
    expect(bundle).toContain('accessPropertiesByDotNotation')
  }, 120_000)
})
