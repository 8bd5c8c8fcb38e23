import type Database from 'better-sqlite3'
import type { AnalysisItem, CallRecord } from '../../../shared/domain'
import { forEachId, valueDictionary } from '../analysis-lists'
import { parseExtra } from '../records'

/** The columns of `calls` a record is made of, by name: the statement is read raw, by position. */
const NEEDED = ['id', 'call_id', 'call_at', 'call_date', 'title', 'summary', 'extra', 'first_seen_at', 'last_changed_at'] as const
type Needed = (typeof NEEDED)[number]

/**
 * Turns a stream of raw `calls` rows into records, their analysis read for a batch of calls
 * at once, for one export (schema 19 on). Within one iteration the keys are read once and
 * each dictionary value becomes one item object that every record holding it shares: the
 * items are read-only, and making three objects per item (row, named item, record item) was
 * most of the time spent reading records. The iteration's own statement keeps its read
 * transaction open while it runs, so the keys read at its start hold for all of it.
 */
export class RecordBatches {
  private keys: Map<number, readonly [string, string]> | null = null
  private readonly items: Array<AnalysisItem | undefined> = []
  private readonly at: Record<Needed, number>

  constructor(
    private readonly db: Database.Database,
    private readonly lists: Database.Statement,
    columns: readonly string[]
  ) {
    const at = {} as Record<Needed, number>
    for (const name of NEEDED) {
      const i = columns.indexOf(name)
      if (i < 0) throw new Error(`export rows lack the column ${name}`)
      at[name] = i
    }
    this.at = at
  }

  records(rows: readonly unknown[][]): CallRecord[] {
    const { at } = this
    const ids = rows.map((r) => r[at.id] as number)
    const listOf = new Map(this.lists.all(JSON.stringify(ids)) as Array<[number, string]>)
    const d = valueDictionary(this.db)
    const valueIds: number[][] = []
    const all: number[] = []
    for (const id of ids) {
      const list = listOf.get(id)
      const own: number[] = []
      if (list !== undefined)
        forEachId(list, (v) => {
          own.push(v)
          all.push(v)
        })
      valueIds.push(own)
    }
    d.need(all)
    this.keys ??= this.readKeys()
    return rows.map((r, n) => ({
      callId: r[at.call_id] as string,
      callAt: r[at.call_at] as number,
      callDate: r[at.call_date] as string,
      title: r[at.title] as string,
      summary: r[at.summary] as string,
      analysis: valueIds[n]!.map((v) => this.item(v)),
      extra: parseExtra(r[at.extra] as string),
      firstSeenAt: r[at.first_seen_at] as number,
      lastChangedAt: r[at.last_changed_at] as number
    }))
  }

  private item(v: number): AnalysisItem {
    let item = this.items[v]
    if (item === undefined) {
      const d = valueDictionary(this.db)
      const k = this.keys!.get(d.keyOf[v]!)
      if (k === undefined) throw new Error(`analysis key ${d.keyOf[v]} is not stored`)
      item = this.items[v] = { key: k[0], friendlyName: k[1], value: d.valueOf[v]! }
    }
    return item
  }

  private readKeys(): Map<number, readonly [string, string]> {
    const rows = this.db.prepare('SELECT id, key, friendly_name FROM analysis_keys').raw().all() as Array<[number, string, string]>
    return new Map(rows.map(([id, key, name]) => [id, [key, name] as const]))
  }
}
