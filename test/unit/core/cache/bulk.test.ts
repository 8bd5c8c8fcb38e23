import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BulkInsert } from '../../../../src/core/cache/ingest/bulk'

let db: Database.Database
const rows = (): unknown[] => db.prepare('SELECT a, b FROM t ORDER BY rowid').raw(true).all()

beforeEach(() => {
  db = new Database(':memory:')
  db.exec('CREATE TABLE t (a INTEGER, b TEXT)')
})
afterEach(() => db.close())

describe('BulkInsert', () => {
  it('inserts a full chunk of put values at once, the rest on flush, in the order put', () => {
    const ins = new BulkInsert(db, 'INSERT INTO t (a, b)', 2, 3)
    for (let i = 0; i < 7; i++) {
      ins.put(i)
      ins.put(`v${i}`)
    }
    // Two chunks of three rows went in as they filled; the seventh waits for flush.
    expect(rows()).toHaveLength(6)
    ins.flush()
    expect(rows()).toEqual(Array.from({ length: 7 }, (_, i) => [i, `v${i}`]))
    ins.flush()
    expect(rows()).toHaveLength(7)
  })

  it('runs rows put before a whole batch handed to run first', () => {
    const ins = new BulkInsert(db, 'INSERT INTO t (a, b)', 2, 2)
    ins.put(1)
    ins.put('put')
    ins.run([2, 'run', 3, 'run', 4, 'run'])
    expect(rows()).toEqual([
      [1, 'put'],
      [2, 'run'],
      [3, 'run'],
      [4, 'run']
    ])
  })

  it('forgets what discard drops: a failed transaction leaves nothing for the next', () => {
    const ins = new BulkInsert(db, 'INSERT INTO t (a, b)', 2, 4)
    ins.put(1)
    ins.put('lost')
    ins.discard()
    ins.put(2)
    ins.put('kept')
    ins.flush()
    expect(rows()).toEqual([[2, 'kept']])
  })
})
