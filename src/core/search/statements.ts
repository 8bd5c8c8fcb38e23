import type Database from 'better-sqlite3'

/** Prepared statements by SQL text; queries differ only in a handful of shapes. */
export class StatementCache {
  private readonly map = new Map<string, Database.Statement>()
  constructor(
    private readonly db: Database.Database,
    private readonly size = 200
  ) {}

  get(sql: string): Database.Statement {
    let s = this.map.get(sql)
    if (s) {
      this.map.delete(sql)
    } else {
      s = this.db.prepare(sql)
    }
    this.map.set(sql, s)
    if (this.map.size > this.size) {
      const oldest = this.map.keys().next()
      if (!oldest.done) this.map.delete(oldest.value)
    }
    return s
  }
}
