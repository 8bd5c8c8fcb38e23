#!/usr/bin/env node
/**
 * `npm start`: build, make sure Electron and its build of better-sqlite3 are there, open
 * the app. With no account configured the app offers the demo service. Where Electron's
 * binary is missing and cannot be fetched (a locked-down workstation, a sandbox), say so in
 * one line and run the same app in a browser tab instead (`callsight serve`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { spawnSync, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const say = (line) => console.log(`callsight: ${line}`)
const run = (args, opts = {}) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', ...opts })
const args = process.argv.slice(2)

// Quiet: the address serve prints must not scroll away under some fifty lines of bundle sizes.
const build = run([join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'])
if (build.status !== 0) process.exit(build.status ?? 1)

const electronDir = join(root, 'node_modules/electron')
// Where the electron package itself looks (node_modules/electron/index.js).
const binary = () => {
  const pathFile = join(electronDir, 'path.txt')
  const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH
  const p = override ? join(override, name ?? 'electron') : name && join(electronDir, 'dist', name)
  return p && existsSync(p) ? p : null
}

// A fetch that failed (no route to github.com) is not tried, nor announced, on every start:
// the marker says it was tried; `npx install-electron` or removing the marker tries again.
const fetchTried = join(electronDir, '.callsight-fetch-failed')
if (!binary() && !existsSync(fetchTried) && !process.env.ELECTRON_SKIP_BINARY_DOWNLOAD && !process.env.ELECTRON_OVERRIDE_DIST_PATH) {
  say("fetching Electron's binary (once)...")
  run([join(electronDir, 'install.js')], { stdio: ['ignore', 'ignore', 'ignore'], timeout: 300_000 })
  if (!binary()) {
    try {
      writeFileSync(fetchTried, `${new Date().toISOString()}\n`)
    } catch {
      // A read-only node_modules: it is tried again next time.
    }
  }
}
const electron = binary()
if (!electron) {
  say(
    "Electron's binary is not installed and could not be downloaded here, so Callsight runs in your browser instead (callsight serve); for the desktop window, get Electron on a machine that reaches github.com with `npx install-electron` (or set ELECTRON_MIRROR)."
  )
  const cli = run([join(root, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'vite.node.config.mts', '--logLevel', 'warn'], {
    stdio: ['ignore', 'inherit', 'inherit']
  })
  if (cli.status !== 0) process.exit(cli.status ?? 1)
  // serve prints the address first and opens the browser itself (not where there is no display).
  const child = spawn(process.execPath, [join(root, 'out/node/cli.mjs'), 'serve', ...args], { cwd: root, stdio: 'inherit' })
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
  // A terminal's Ctrl-C reaches serve directly; anything sent to this process only is passed
  // on as SIGTERM, which serve answers by closing cleanly (a second one does not cut it short).
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill('SIGTERM'))
} else {
  const native = run([join(root, 'scripts/electron-native.mjs'), '--require'])
  if (native.status !== 0) process.exit(native.status ?? 1)

  const child = spawn(electron, [root, ...args], { cwd: root, stdio: 'inherit' })
  child.on('exit', (code) => process.exit(code ?? 0))
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
}
