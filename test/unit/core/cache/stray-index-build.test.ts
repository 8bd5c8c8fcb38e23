import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { openCache } from '../../../../src/core/cache'
import { sideFileOf } from '../../../../src/core/cache/ingest/deferred-index'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-stray-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

// A pull killed between the transaction that took its index in and the removal of its
// scratch copy leaves the copy behind with nothing referring to it.
it("a finished build's scratch copy left behind is removed by the next writable open, a locked one is not", () => {
  const file = join(dir, 'c.db')
  openCache(file, { checkpointer: false }).close()
  const side = sideFileOf(file)
  writeFileSync(side, '')
  openCache(file, { readonly: true, checkpointer: false }).close()
  expect(existsSync(side)).toBe(true)
  openCache(file, { checkpointer: false }).close()
  expect(existsSync(side)).toBe(false)

  // A build that is starting holds its copy locked: another open leaves it alone.
  const running = new Database(side)
  try {
    running.pragma('locking_mode = EXCLUSIVE')
    running.exec('CREATE TABLE t (x)')
    openCache(file, { checkpointer: false }).close()
    expect(existsSync(side)).toBe(true)
  } finally {
    running.close()
  }
})
