#!/usr/bin/env node
/**
 * Builds better-sqlite3 for Electron's ABI into native/electron-<abi>/, beside (never over)
 * the Node build in node_modules that tests, the CLI and the service use. The app loads it
 * through better-sqlite3's `nativeBinding` option (src/main/native.ts).
 *
 * Why not electron-builder install-app-deps / @electron/rebuild: on machines whose npm
 * config sets `nodedir`, they silently build for Node's ABI and report success.
 * This script unsets that, builds in a scratch copy, and then proves the result is NOT
 * loadable by Node (an Electron-ABI addon must be refused by Node with its ABI number).
 *
 *   node scripts/electron-native.mjs            build if missing; skip with a notice when Electron is absent
 *   node scripts/electron-native.mjs --require  the same, but fail when it cannot be built (packaging)
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, copyFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const required = process.argv.includes('--require')
const say = (line) => console.log(`callsight: ${line}`)
const fail = (line) => {
  say(line)
  process.exit(required ? 1 : 0)
}

const electronPkg = join(root, 'node_modules/electron/package.json')
if (!existsSync(electronPkg)) fail('Electron is not installed; skipping the Electron build of better-sqlite3.')
const electronVersion = JSON.parse(readFileSync(electronPkg, 'utf8')).version
const abi = readFileSync(join(root, 'node_modules/electron/abi_version'), 'utf8').trim()
const outDir = join(root, 'native', `electron-${abi}`)
const target = join(outDir, 'better_sqlite3.node')

if (existsSync(target) && !process.argv.includes('--force')) {
  say(`better-sqlite3 for Electron ${electronVersion} (ABI ${abi}) is ready: ${target}`)
  process.exit(0)
}

const work = mkdtempSync(join(tmpdir(), 'callsight-native-'))
try {
  const src = join(root, 'node_modules/better-sqlite3')
  const copy = join(work, 'better-sqlite3')
  cpSync(src, copy, { recursive: true, filter: (p) => !p.includes(`${join('better-sqlite3', 'build')}`) })
  mkdirSync(join(copy, 'node_modules'), { recursive: true })

  // A clean environment: no npm-configured nodedir, so the Electron headers are used.
  const env = { ...process.env }
  for (const k of Object.keys(env)) if (/^npm_config_(nodedir|node_gyp|target|runtime|disturl|dist_url)$/i.test(k)) delete env[k]
  env.npm_config_nodedir = ''

  const arch = process.env.npm_config_arch || process.arch
  const prebuild = join(root, 'node_modules/prebuild-install/bin.js')
  let built = false
  if (existsSync(prebuild)) {
    const r = spawnSync(process.execPath, [prebuild, '--runtime', 'electron', '--target', electronVersion, '--arch', arch], {
      cwd: copy,
      env,
      stdio: 'inherit'
    })
    built = r.status === 0
  }
  if (!built) {
    const gyp = join(root, 'node_modules/node-gyp/bin/node-gyp.js')
    const r = spawnSync(
      process.execPath,
      [
        gyp,
        'rebuild',
        '--release',
        '--runtime=electron',
        `--target=${electronVersion}`,
        `--arch=${arch}`,
        '--dist-url=https://electronjs.org/headers',
        '--nodedir='
      ],
      { cwd: copy, env, stdio: 'inherit' }
    )
    built = r.status === 0
  }
  const produced = join(copy, 'build/Release/better_sqlite3.node')
  if (!built || !existsSync(produced))
    fail(`could not build better-sqlite3 for Electron ${electronVersion} (no prebuilt binary and no Electron headers reachable).`)

  // Proof of ABI: Node must refuse an Electron-ABI addon, naming Electron's module version.
  try {
    createRequire(import.meta.url)(produced)
    fail(
      `the build of better-sqlite3 loads under Node ${process.version}: it targets Node's ABI, not Electron's ${abi}. Not installing it.`
    )
  } catch (e) {
    if (!String(e && e.message).includes(`NODE_MODULE_VERSION ${abi}`))
      fail(`unexpected result checking the Electron build's ABI: ${String(e && e.message).split('\n')[0]}`)
  }
  mkdirSync(outDir, { recursive: true })
  copyFileSync(produced, target)
  say(`built better-sqlite3 for Electron ${electronVersion} (ABI ${abi}): ${target}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
