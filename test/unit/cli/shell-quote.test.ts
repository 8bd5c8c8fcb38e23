import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { coverageWarning, syncCommandFor } from '../../../src/cli/coverage-note'
import { shellWord } from '../../../src/cli/shell-quote'
import type { CoverageGap } from '../../../src/shared/domain'

// Values as a hostile catalog or cache path could hold them.
const HOSTILE = [
  'x;curl http://127.0.0.1:9/p|sh;',
  'a|b',
  '$(touch MARK)',
  '`touch MARK`',
  "O'Brien's",
  "'",
  "''",
  'line\nbreak',
  'two words',
  'İade İşlemi',
  'şikâyet/ödeme',
  'a&&b',
  '>out',
  '*',
  '~root',
  '$HOME',
  '-n',
  ''
]

let dir = ''
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** What a real POSIX shell makes of a printed command line: its arguments after the first word. */
function argvOf(commandLine: string, cwd: string): string[] {
  const rest = commandLine.slice(commandLine.indexOf(' ') + 1)
  const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${rest}`], { cwd, encoding: 'utf8' })
  return out.split('\0').slice(0, -1)
}

const gap = (over: Partial<CoverageGap>): CoverageGap => ({
  callTypes: [],
  direction: null,
  results: 'answered',
  hasNewRequest: null,
  analysis: false,
  from: Date.UTC(2026, 0, 1),
  to: Date.UTC(2026, 1, 1),
  ...over
})

describe('shellWord', () => {
  it('leaves plain words, Turkish ones too, as they are', () => {
    for (const w of ['Sales', 'İade', 'ŞİKAYET_2', '/home/ayşe/calls.sqlite', '2026-01-01T00:00:00+03:00', 'a,b']) {
      expect(shellWord(w)).toBe(w)
    }
  })

  it("single-quotes the rest, a ' as '\\''", () => {
    expect(shellWord("O'Brien")).toBe(`'O'\\''Brien'`)
    expect(shellWord('a;b')).toBe(`'a;b'`)
    expect(shellWord('')).toBe(`''`)
  })

  it.runIf(process.platform !== 'win32')('/bin/sh reads each hostile value back as exactly one argument, running nothing', () => {
    dir = mkdtempSync(join(tmpdir(), 'callsight-quote-'))
    expect(argvOf(`cmd ${HOSTILE.map(shellWord).join(' ')}`, dir)).toEqual(HOSTILE)
    expect(existsSync(join(dir, 'MARK'))).toBe(false)
  })
})

describe.runIf(process.platform !== 'win32')('the coverage hint', () => {
  it('gives the sync command the call types and the cache path as the values they are', () => {
    dir = mkdtempSync(join(tmpdir(), 'callsight-quote-'))
    for (const value of HOSTILE) {
      const db = `/tmp/${value}.sqlite`
      const argv = argvOf(syncCommandFor(gap({ callTypes: [value, 'Sales'] }), db, 'Europe/Istanbul'), dir)
      expect(argv[argv.indexOf('--types') + 1]).toBe(`${value},Sales`)
      expect(argv[argv.indexOf('--db') + 1]).toBe(db)
      expect(argv).toHaveLength(13)
    }
    expect(existsSync(join(dir, 'MARK'))).toBe(false)
  })

  it('prints the quoted command in its warning line', () => {
    dir = mkdtempSync(join(tmpdir(), 'callsight-quote-'))
    const missing = [gap({ callTypes: ['x;touch MARK|sh;'] })]
    const line = coverageWarning('search', { complete: false, from: null, to: null, missing }, 'c.sqlite', 'UTC')
    const command = line!.slice(line!.indexOf('Sync it: ') + 'Sync it: '.length)
    expect(command).toContain(`--types 'x;touch MARK|sh;'`)
    const argv = argvOf(command, dir)
    expect(argv[argv.indexOf('--types') + 1]).toBe('x;touch MARK|sh;')
    expect(existsSync(join(dir, 'MARK'))).toBe(false)
  })
})
