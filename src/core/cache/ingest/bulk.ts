import type Database from 'better-sqlite3'

/**
 * Multi-row INSERTs with statements prepared once per row count. One statement call per
 * chunk instead of one per row is what lets a page of 100 calls with 1,000 analysis items
 * ingest in a few milliseconds: the per-call overhead of the driver dominates otherwise.
 *
 * Rows are either handed over whole (run) or value by value (put) into one preallocated
 * chunk that is inserted as soon as it is full. Building a page's rows in a growing array
 * first cost about 1 µs per analysis item in array growth and its garbage alone (a pull
 * batch's 20,000 items are 100,000 values), and run() then copied it chunk by chunk again.
 */
export class BulkInsert {
  private readonly statements = new Map<number, Database.Statement>()
  private readonly rowSql: string
  /** Values put and not yet inserted: one chunk's worth at most, reused. */
  private readonly pending: unknown[]
  private filled = 0

  constructor(
    private readonly db: Database.Database,
    private readonly head: string,
    private readonly columns: number,
    private readonly chunk: number,
    private readonly tail = ''
  ) {
    this.rowSql = `(${new Array<string>(columns).fill('?').join(',')})`
    this.pending = new Array<unknown>(columns * chunk).fill(null)
  }

  /**
   * One value of a row, in column order; a full chunk is inserted at once. Rows put are in
   * the table only after flush(): callers flush before anything reads them or depends on them.
   */
  put(value: unknown): void {
    this.pending[this.filled++] = value
    if (this.filled === this.pending.length) {
      this.filled = 0
      this.statement(this.chunk).run(this.pending)
    }
  }

  /** Inserts the rows put so far. */
  flush(): void {
    if (this.filled === 0) return
    const n = this.filled
    this.filled = 0
    this.statement(n / this.columns).run(this.pending.slice(0, n))
  }

  /** Forgets rows put and not inserted (their transaction failed). */
  discard(): void {
    this.filled = 0
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
    // Rows put before go first: the order of inserts is the caller's order.
    this.flush()
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
