#!/usr/bin/env node
// Runs one of the plain-Node bundles in out/node, building them first when they are missing.
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { dirname, join } from 'node:path'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [name, ...args] = process.argv.slice(2)
const entry = join(root, 'out', 'node', `${name}.mjs`)
if (!existsSync(entry)) {
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'vite.node.config.mts', '--logLevel', 'warn'],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] }
  )
  if (r.status !== 0) process.exit(r.status ?? 1)
}
process.argv = [process.argv[0], entry, ...args]
await import(pathToFileURL(entry).href)
