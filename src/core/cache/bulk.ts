import type Database from 'better-sqlite3'

/**
 * Multi-row INSERTs with statements prepared once per row count. One statement call per
 * chunk instead of one per row is what lets a page of 100 calls with 1,000 analysis items
 * ingest in a few milliseconds: the per-call overhead of the driver dominates otherwise.
 */
export class BulkInsert {
  private readonly statements = new Map<number, Database.Statement>()
  private readonly rowSql: string

  constructor(
    private readonly db: Database.Database,
    private readonly head: string,
    private readonly columns: number,
    private readonly chunk: number,
    private readonly tail = ''
  ) {
    this.rowSql = `(${new Array<string>(columns).fill('?').join(',')})`
  }

  private statement(rows: number): Database.Statement {
    let s = this.statements.get(rows)
    if (!s) {
      s = this.db.prepare(`${this.head} VALUES ${new Array<string>(rows).fill(this.rowSql).join(',')} ${this.tail}`)
      this.statements.set(rows, s)
    }
    return s
  }

  /** `values` holds rows back to back, `columns` values each. */
  run(values: readonly unknown[]): void {
    const total = values.length / this.columns
    if (total === 0) return
    // One chunk (the usual page): bind the array as it is, no copy.
    if (total <= this.chunk) {
      this.statement(total).run(values)
      return
    }
    for (let row = 0; row < total; row += this.chunk) {
      const n = Math.min(this.chunk, total - row)
      this.statement(n).run(values.slice(row * this.columns, (row + n) * this.columns))
    }
  }
}
