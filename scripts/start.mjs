#!/usr/bin/env node
/**
 * `npm start`: build, make sure Electron and its build of better-sqlite3 are there, open
 * the app. With no account configured the app offers the demo service. Where Electron's
 * binary is missing and cannot be fetched, say so in one line instead of a stack trace.
 */
import { existsSync, readFileSync } from 'node:fs'
import { spawnSync, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const say = (line) => console.log(`callsight: ${line}`)
const run = (args, opts = {}) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', ...opts })

const build = run([join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'])
if (build.status !== 0) process.exit(build.status ?? 1)

const electronDir = join(root, 'node_modules/electron')
const binary = () => {
  const pathFile = join(electronDir, 'path.txt')
  if (!existsSync(pathFile)) return null
  const p = join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(p) ? p : null
}

if (!binary() && !process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
  say("fetching Electron's binary (once)...")
  run([join(electronDir, 'install.js')], { stdio: ['ignore', 'ignore', 'ignore'], timeout: 300_000 })
}
const electron = binary()
if (!electron) {
  say("Electron's binary is not installed and could not be downloaded here. Get it on a machine that reaches github.com with `npx install-electron` (or set ELECTRON_MIRROR), then run `npm start` again. Everything else works without it: `npm test`, `npm run service`, `npm run cli`.")
  process.exit(1)
}

const native = run([join(root, 'scripts/electron-native.mjs'), '--require'])
if (native.status !== 0) process.exit(native.status ?? 1)

const child = spawn(electron, [root, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
child.on('exit', (code) => process.exit(code ?? 0))
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
