import type Database from 'better-sqlite3'

/** How a statement returns rows: objects by column name, the first column only, or arrays. */
export type RowMode = 'objects' | 'pluck' | 'raw'

/**
 * Prepared statements by SQL text and row mode (a statement's mode is part of it, so one
 * prepared per mode). Search asks for a handful of shapes; an LRU bounds the rest.
 */
export class StatementCache {
  private readonly map = new Map<string, Database.Statement>()

  constructor(
    readonly db: Database.Database,
    private readonly size = 200
  ) {}

  get(sql: string, mode: RowMode = 'objects'): Database.Statement {
    const key = `${mode}\u0000${sql}`
    let s = this.map.get(key)
    if (s) {
      this.map.delete(key)
    } else {
      s = this.db.prepare(sql)
      if (mode === 'pluck') s.pluck(true)
      else if (mode === 'raw') s.raw(true)
    }
    this.map.set(key, s)
    if (this.map.size > this.size) {
      const oldest = this.map.keys().next()
      if (!oldest.done) this.map.delete(oldest.value)
    }
    return s
  }
}
