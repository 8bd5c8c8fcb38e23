import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT_HELP } from '../../../src/cli/exit-codes'
import { COMMAND_HELP } from '../../../src/cli/help'
import { buildCli, removeBuild } from './build-cli'

// `callsight --version` and `callsight <command> --help`, from the built bundle. A command's
// help must not load the command's code: in a copy of the bundle without the chunks the
// entry imports on demand (every command's code), each --help still prints its text, while
// running a command there fails.

const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as { version: string }

let cli = ''
let bare = ''
let bareDir = ''
const run = (file: string, args: string[]) =>
  spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })

beforeAll(async () => {
  cli = await buildCli()
  bareDir = mkdtempSync(join(tmpdir(), 'callsight-cli-bare-'))
  cpSync(dirname(cli), bareDir, { recursive: true })
  bare = join(bareDir, 'cli.mjs')
  const lazy = [...readFileSync(bare, 'utf8').matchAll(/import\("\.\/([^"]+\.js)"\)/g)].map((m) => m[1]!)
  // One chunk per command at least (shared code may share chunks).
  expect(new Set(lazy).size).toBeGreaterThanOrEqual(Object.keys(COMMAND_HELP).length - 2)
  for (const f of new Set(lazy)) rmSync(join(bareDir, f))
  expect(readdirSync(bareDir, { recursive: true }).length).toBeLessThan(readdirSync(dirname(cli), { recursive: true }).length)
}, 120_000)
afterAll(() => {
  removeBuild(cli)
  if (bareDir) rmSync(bareDir, { recursive: true, force: true })
})

describe('callsight --version and <command> --help', () => {
  it('prints the package version for --version and -V', () => {
    for (const flag of ['--version', '-V']) {
      const r = run(cli, [flag])
      expect(r.status).toBe(0)
      expect(r.stdout).toBe(`callsight ${pkg.version}\n`)
      expect(r.stderr).toBe('')
    }
    // The entry holds the version, not the whole package.json (its dependency list).
    expect(readFileSync(cli, 'utf8')).not.toContain('"better-sqlite3"')
    expect(run(cli, ['--help']).stdout).toContain('callsight --version')
  })

  it("prints each command's help without the command's code", () => {
    // Every command the entry knows has its help.
    expect(Object.keys(COMMAND_HELP).sort()).toEqual([
      'annotations',
      'export',
      'pull',
      'remote-search',
      'search',
      'serve',
      'status',
      'sync',
      'team',
      'types',
      'worker'
    ])
    for (const [name, help] of Object.entries(COMMAND_HELP)) {
      for (const flag of ['--help', '-h']) {
        const r = run(bare, [name, flag])
        expect(r.stderr).toBe('')
        expect(r.status).toBe(0)
        expect(r.stdout).toBe(`${help}\n\n${EXIT_HELP}\n`)
        expect(r.stdout.startsWith(`callsight ${name}`)).toBe(true)
      }
    }
    // Without those chunks a command itself cannot run: its help did not need them.
    const r = run(bare, ['types', 'list', '--db', join(bareDir, 'none.db')])
    expect(r.status).not.toBe(0)
    // (its code could not be loaded: an internal failure)
    expect(r.stderr).toMatch(/^callsight types: Something went wrong inside Callsight/)
  })
})
