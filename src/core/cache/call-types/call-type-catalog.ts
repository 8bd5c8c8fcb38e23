import type Database from 'better-sqlite3'
import { z } from 'zod'
import { CallType } from '../../../shared/domain'
import { CallTypeNames } from './call-type-names'

/** Where an entry came from: a name a sync succeeded with, a catalog file, or Settings. */
export const CallTypeSource = z.enum(['sync', 'import', 'edit'])
export type CallTypeSource = z.infer<typeof CallTypeSource>

export interface CallTypeEntry extends CallType {
  source: CallTypeSource
}

export interface CatalogImport {
  added: number
  updated: number
  /** Learnt names now filed under the entry whose Value or Description they are. */
  merged: number
}

/** The `call_types` table: the account's call type catalog. */
export class CallTypeCatalog {
  constructor(private readonly db: Database.Database) {}

  list(): CallType[] {
    return this.db.prepare('SELECT value, description FROM call_types ORDER BY value').all() as CallType[]
  }

  entries(): CallTypeEntry[] {
    const rows = this.db.prepare('SELECT value, description, source FROM call_types ORDER BY value').all() as CallTypeEntry[]
    return rows.map((r) => ({ value: r.value, description: r.description, source: CallTypeSource.parse(r.source) }))
  }

  /** Adds or updates entries; a Description given replaces the stored one. */
  upsert(list: readonly CallType[], source?: CallTypeSource): void {
    const rows = z.array(CallType).parse(list)
    const put = this.db.prepare(
      `INSERT INTO call_types (value, description, source) VALUES (?, ?, ?)
       ON CONFLICT (value) DO UPDATE SET description = excluded.description, source = excluded.source`
    )
    this.db
      .transaction(() => {
        for (const t of rows) put.run(t.value, t.description, source ?? (t.description === '' ? 'sync' : 'import'))
      })
      .immediate()
  }

  /**
   * A catalog file or Settings' edits: each entry added or updated; a name a sync had learnt
   * that is now another entry's Value or Description (in any case) is dropped, since the
   * entry stands for it. With `replace`, entries not in the list go too (Settings' list is
   * the whole catalog).
   */
  import(list: readonly CallType[], source: 'import' | 'edit', replace = false): CatalogImport {
    const rows = z.array(CallType).parse(list)
    return this.db
      .transaction((): CatalogImport => {
        const before = new Map(this.list().map((t) => [t.value, t.description]))
        let added = 0
        let updated = 0
        for (const t of rows) {
          const old = before.get(t.value)
          if (old === undefined) added++
          else if (old !== t.description) updated++
        }
        if (replace) {
          const keep = new Set(rows.map((t) => t.value))
          const drop = this.db.prepare('DELETE FROM call_types WHERE value = ?')
          for (const value of before.keys()) if (!keep.has(value)) drop.run(value)
        }
        const put = this.db.prepare(
          `INSERT INTO call_types (value, description, source) VALUES (?, ?, ?)
         ON CONFLICT (value) DO UPDATE SET description = excluded.description,
           source = CASE WHEN call_types.description = excluded.description THEN call_types.source ELSE excluded.source END`
        )
        for (const t of rows) put.run(t.value, t.description, source)
        const names = new CallTypeNames(rows)
        const learnt = this.db.prepare("SELECT value FROM call_types WHERE source = 'sync'").pluck().all() as string[]
        const drop = this.db.prepare('DELETE FROM call_types WHERE value = ?')
        let merged = 0
        for (const value of learnt) {
          const owner = names.canonical(value)
          if (owner !== null && owner !== value) {
            drop.run(value)
            merged++
          }
        }
        return { added, updated, merged }
      })
      .immediate()
  }
}
