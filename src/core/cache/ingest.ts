import type Database from 'better-sqlite3'
import type { AnalysisItem, CallRecord } from '../../shared/domain'
import { BulkInsert } from './bulk'
import { foldForIndex } from './fold'
import { parseNumeric } from './numeric'
import { extraJson } from './records'
import { FacetTotals, hourOf } from './totals'

export interface PageCounts {
  inserted: number
  updated: number
  unchanged: number
}

/** A call as stored, with what a page's copy is compared against. */
interface Existing {
  call_id: string
  id: number
  call_at: number
  call_date: string
  title: string
  summary: string
  extra: string
  /** NULL until a page fetched with analysis carried the call ('' or, from before v3, a hash). */
  analysis_hash: string | null
  /** The stored items, in order: read only when the page carries analysis. */
  items: readonly AnalysisItem[]
}

interface StoredItemDb {
  call: number
  key: string
  friendly_name: string
  value: string
}

const sameItems = (a: readonly AnalysisItem[], b: readonly AnalysisItem[]): boolean =>
  a.length === b.length && a.every((x, i) => x.key === b[i]!.key && x.friendlyName === b[i]!.friendlyName && x.value === b[i]!.value)

const LOOKUP_CHUNK = 200

/**
 * Upserts a page of records. Called inside the page transaction; never opens one itself.
 * New calls (the bulk of any first sync) are written with multi-row statements; changed
 * calls, which are rare, go one by one; unchanged calls cost only their share of one
 * lookup and of one membership insert.
 */
export class RecordWriter {
  private readonly lookups = new Map<number, Database.Statement<unknown[], Omit<Existing, 'items'>>>()
  private readonly itemLookups = new Map<number, Database.Statement<unknown[], StoredItemDb>>()
  private readonly nextId: Database.Statement<[], number>
  private readonly updateBase: Database.Statement
  private readonly updateAnalysisMeta: Database.Statement
  private readonly deleteAnalysis: Database.Statement
  private readonly analysisValues: Database.Statement<[number], string>
  private readonly ftsDelete: Database.Statement
  private readonly keyInsert: Database.Statement
  private readonly keyFind: Database.Statement<[string, string], number>
  /** key → friendly name → id: nested, so no string is built per item. */
  private readonly keyIds = new Map<string, Map<string, number>>()
  /** Per key id: [items, numeric items] added (or removed, negative) by the current page. */
  private readonly keyStats = new Map<number, [number, number]>()
  private readonly oldItems: Database.Statement<[number], { key_id: number; value: string; value_num: number | null }>
  private readonly scopesOfCall: Database.Statement<[number], number>
  private readonly memberChecks = new Map<number, Database.Statement<unknown[], number>>()
  /** Calls written without a scope in this transaction (a pull), for addMembers. */
  private readonly unscoped = new Map<string, { id: number; call_at: number; fresh: boolean }>()
  private readonly memberLookups = new Map<number, Database.Statement<unknown[], { id: number; call_id: string; call_at: number }>>()
  private readonly totals: FacetTotals
  private readonly bumpKey: Database.Statement
  private readonly calls: BulkInsert
  private readonly analysis: BulkInsert
  private readonly ftsInsert: Database.Statement<[string]>
  /** Index rows of the transaction by call id, written at its end (see finish()). */
  private readonly pendingFts = new Map<number, [string, string, string]>()
  /** The first id given to a new call in this transaction, if any. */
  newFrom: number | null = null
  /** Calls stored before this transaction that it changed or added to a scope. */
  touched: number[] = []
  /** Calls whose index row from before the transaction must go. */
  private readonly staleFts: number[] = []
  private readonly members: BulkInsert

  constructor(private readonly db: Database.Database) {
    this.nextId = db.prepare<[], number>('SELECT coalesce(max(id), 0) + 1 FROM calls').pluck()
    this.updateBase = db.prepare(
      'UPDATE calls SET call_at = ?, call_date = ?, title = ?, summary = ?, extra = ?, base_hash = ?, last_changed_at = ? WHERE id = ?'
    )
    this.updateAnalysisMeta = db.prepare('UPDATE calls SET analysis_count = ?, analysis_hash = ?, last_changed_at = ? WHERE id = ?')
    this.deleteAnalysis = db.prepare('DELETE FROM analysis WHERE call = ?')
    this.oldItems = db.prepare<[number], { key_id: number; value: string; value_num: number | null }>(
      'SELECT key_id, value, value_num FROM analysis WHERE call = ?'
    )
    this.scopesOfCall = db.prepare<[number], number>('SELECT scope FROM scope_members WHERE call = ?').pluck()
    this.totals = new FacetTotals(db)
    this.bumpKey = db.prepare('UPDATE analysis_keys SET items = items + ?, numeric_items = numeric_items + ? WHERE id = ?')
    this.analysisValues = db.prepare<[number], string>('SELECT value FROM analysis WHERE call = ? ORDER BY ord').pluck()
    this.ftsDelete = db.prepare('DELETE FROM calls_fts WHERE rowid = ?')
    this.keyInsert = db.prepare('INSERT OR IGNORE INTO analysis_keys (key, friendly_name) VALUES (?, ?)')
    this.keyFind = db.prepare<[string, string], number>('SELECT id FROM analysis_keys WHERE key = ? AND friendly_name = ?').pluck()
    this.calls = new BulkInsert(
      db,
      'INSERT INTO calls (id, call_id, call_at, call_date, title, summary, extra, analysis_count, base_hash, analysis_hash, first_seen_at, last_changed_at)',
      12,
      100
    )
    this.analysis = new BulkInsert(db, 'INSERT INTO analysis (key_id, call, ord, value, value_num)', 5, 500)
    // One statement per transaction whatever its size: rows as one JSON array.
    this.ftsInsert = db.prepare<[string]>(
      "INSERT INTO calls_fts (rowid, title, summary, analysis) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)"
    )
    this.members = new BulkInsert(db, 'INSERT OR IGNORE INTO scope_members (call, scope)', 2, 500)
  }

  /** Forget cached key ids (after the tables were emptied). */
  reset(): void {
    this.keyIds.clear()
    this.keyStats.clear()
    this.totals.reset()
  }

  /**
   * The page's calls already stored, by callId. A copy is compared with the stored fields
   * themselves: hashing every new call's content (SHA-1, as versions before 3 did) cost more
   * than a tenth of ingest, and reading a known call's fields back costs little.
   */
  private existing(records: readonly CallRecord[], includeAnalysis: boolean): Map<string, Existing> {
    const out = new Map<string, Existing>()
    for (let i = 0; i < records.length; i += LOOKUP_CHUNK) {
      const ids = records.slice(i, i + LOOKUP_CHUNK).map((r) => r.callId)
      let stmt = this.lookups.get(ids.length)
      if (!stmt) {
        stmt = this.db.prepare<unknown[], Omit<Existing, 'items'>>(
          `SELECT call_id, id, call_at, call_date, title, summary, extra, analysis_hash FROM calls WHERE call_id IN (${ids.map(() => '?').join(',')})`
        )
        this.lookups.set(ids.length, stmt)
      }
      for (const row of stmt.all(ids)) out.set(row.call_id, { ...row, items: [] })
    }
    if (includeAnalysis && out.size > 0) {
      const byId = new Map([...out.values()].map((e) => [e.id, e]))
      const ids = [...byId.keys()]
      for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
        const chunk = ids.slice(i, i + LOOKUP_CHUNK)
        let stmt = this.itemLookups.get(chunk.length)
        if (!stmt) {
          stmt = this.db.prepare<unknown[], StoredItemDb>(
            `SELECT a.call AS call, k.key AS key, k.friendly_name AS friendly_name, a.value AS value FROM analysis a JOIN analysis_keys k ON k.id = a.key_id
             WHERE a.call IN (${chunk.map(() => '?').join(',')}) ORDER BY a.call, a.ord`
          )
          this.itemLookups.set(chunk.length, stmt)
        }
        const items = new Map<number, AnalysisItem[]>()
        for (const row of stmt.all(chunk)) {
          let list = items.get(row.call)
          if (!list) items.set(row.call, (list = []))
          list.push({ key: row.key, friendlyName: row.friendly_name, value: row.value })
        }
        for (const [id, list] of items) byId.get(id)!.items = list
      }
    }
    return out
  }

  /**
   * After a transaction rolled back: key ids learnt in it may name rows that are gone, so
   * they are read again.
   */
  rolledBack(): void {
    this.keyIds.clear()
  }

  /** Starts a transaction's worth of pages: forgets what a failed one left (it rolled back). */
  begin(): void {
    this.newFrom = null
    this.touched = []
    this.keyStats.clear()
    this.totals.reset()
    this.pendingFts.clear()
    this.staleFts.length = 0
    this.unscoped.clear()
  }

  /**
   * Writes the facet totals and key counters collected since begin(). Deltas add up, so one
   * flush for several pages equals one per page, with far fewer upserts (values repeat).
   */
  finish(): void {
    this.totals.flush()
    for (const [keyId, [items, numeric]] of this.keyStats) this.bumpKey.run(items, numeric, keyId)
    this.keyStats.clear()
    this.writeIndex()
  }

  /**
   * The full-text rows go last, in one statement, in rowid order. FTS5 keeps a transaction's
   * rows in memory and writes them out as one segment at commit, but any later statement
   * that opens a savepoint (every multi-row INSERT does) makes it write what it holds first:
   * writing the index row by page between the other inserts cost a segment per statement
   * and made those inserts four times slower (measured). Deleting in rowid order, then
   * inserting in rowid order, keeps FTS5 from flushing on a rowid that goes backwards.
   */
  private writeIndex(): void {
    this.staleFts.sort((a, b) => a - b)
    for (const id of this.staleFts) this.ftsDelete.run(id)
    this.staleFts.length = 0
    if (this.pendingFts.size === 0) return
    // New ids arrive in order; only changed calls of earlier pages need the sort.
    let ids = [...this.pendingFts.keys()]
    for (let i = 1; i < ids.length; i++) {
      if (ids[i]! < ids[i - 1]!) {
        ids = ids.sort((a, b) => a - b)
        break
      }
    }
    let json = '['
    for (const id of ids) {
      const [title, summary, analysis] = this.pendingFts.get(id)!
      json += `${json.length > 1 ? ',' : ''}[${id},${JSON.stringify(title)},${JSON.stringify(summary)},${JSON.stringify(analysis)}]`
    }
    this.pendingFts.clear()
    this.ftsInsert.run(`${json}]`)
  }

  /**
   * One page, between begin() and finish(), inside the caller's transaction. Without a scope
   * (a team-cache pull, whose memberships travel apart: addMembers) no membership is written.
   */
  write(records: readonly CallRecord[], scopeId: number | null, includeAnalysis: boolean, now: number): PageCounts {
    const counts: PageCounts = { inserted: 0, updated: 0, unchanged: 0 }
    const known = this.existing(records, includeAnalysis)
    let next = this.nextId.get() ?? 1
    let callValues: unknown[] = []
    let analysisValues: unknown[] = []
    const memberValues: unknown[] = []
    const newInPage = new Set<string>()
    /** Each call of the page once, with its final call_at. */
    const pageCalls = new Map<number, Existing>()
    const flush = (): void => {
      this.calls.run(callValues)
      this.analysis.run(analysisValues)
      callValues = []
      analysisValues = []
    }
    for (const r of records) {
      const extra = extraJson(r.extra)
      const old = known.get(r.callId)
      let id: number
      if (old === undefined) {
        id = next++
        if (this.newFrom === null) this.newFrom = id
        // The same callId twice in one page: the later copy is an update of the first.
        const ana = includeAnalysis ? '' : null
        known.set(r.callId, {
          call_id: r.callId,
          id,
          call_at: r.callAt,
          call_date: r.callDate,
          title: r.title,
          summary: r.summary,
          extra,
          analysis_hash: ana,
          items: includeAnalysis ? r.analysis : []
        })
        this.totals.call(hourOf(r.callAt), 1)
        newInPage.add(r.callId)
        // base_hash stays '' (the column predates comparing fields; v1–2 rows keep theirs).
        callValues.push(id, r.callId, r.callAt, r.callDate, r.title, r.summary, extra, includeAnalysis ? r.analysis.length : 0, '', ana, now, now)
        if (includeAnalysis) this.pushAnalysis(analysisValues, id, r)
        this.pendingFts.set(id, [foldForIndex(r.title), foldForIndex(r.summary), includeAnalysis ? this.analysisText(r) : ''])
        counts.inserted++
      } else {
        id = old.id
        // The first copy may still wait in the bulk buffers; it must be stored before an update.
        if (newInPage.has(r.callId)) flush()
        if (this.update(old, r, extra, includeAnalysis, now)) {
          counts.updated++
          if (this.newFrom === null || id < this.newFrom) this.touched.push(id)
        }
        else counts.unchanged++
      }
      memberValues.push(id, scopeId)
      pageCalls.set(id, known.get(r.callId)!)
    }
    flush()
    if (scopeId === null) {
      for (const [id, c] of pageCalls) this.unscoped.set(c.call_id, { id, call_at: c.call_at, fresh: this.newFrom !== null && id >= this.newFrom })
      return counts
    }
    this.countNewMembers(pageCalls, newInPage, scopeId)
    this.members.run(memberValues)
    return counts
  }

  /**
   * Adds calls already stored to a scope (a team-cache pull), counted in the facet totals
   * like a sync page's memberships. Unknown callIds are returned, not stored.
   */
  addMembers(callIds: readonly string[], scopeId: number): string[] {
    const found = new Map<number, Pick<Existing, 'call_id' | 'call_at'>>()
    const missing = new Set(callIds)
    // Calls this transaction wrote are known by id already; those it inserted cannot be in
    // the scope yet (a batch names a membership once), so they need no membership check.
    const fresh = new Set<string>()
    const unknown: string[] = []
    for (const callId of callIds) {
      const c = this.unscoped.get(callId)
      if (!c) {
        unknown.push(callId)
        continue
      }
      found.set(c.id, { call_id: callId, call_at: c.call_at })
      missing.delete(callId)
      if (c.fresh) fresh.add(callId)
    }
    for (let i = 0; i < unknown.length; i += LOOKUP_CHUNK) {
      const ids = unknown.slice(i, i + LOOKUP_CHUNK)
      let stmt = this.memberLookups.get(ids.length)
      if (!stmt) {
        stmt = this.db.prepare<unknown[], { id: number; call_id: string; call_at: number }>(
          `SELECT id, call_id, call_at FROM calls WHERE call_id IN (${ids.map(() => '?').join(',')})`
        )
        this.memberLookups.set(ids.length, stmt)
      }
      for (const row of stmt.all(ids)) {
        found.set(row.id, row)
        missing.delete(row.call_id)
      }
    }
    this.countNewMembers(found, fresh, scopeId)
    const values: unknown[] = []
    for (const id of found.keys()) values.push(id, scopeId)
    this.members.run(values)
    return [...missing]
  }

  /**
   * Rewrites a known call when its content differs from what is stored; false when nothing
   * changed. Analysis is compared only when the page carries it (a page without analysis
   * says nothing about it); a call first stored without analysis takes it the first time.
   */
  private update(old: Existing, r: CallRecord, extra: string, includeAnalysis: boolean, now: number): boolean {
    const baseChanged =
      old.call_at !== r.callAt || old.call_date !== r.callDate || old.title !== r.title || old.summary !== r.summary || old.extra !== extra
    const anaChanged = includeAnalysis && (old.analysis_hash === null || !sameItems(old.items, r.analysis))
    if (!baseChanged && !anaChanged) return false
    const id = old.id
    if (baseChanged) {
      this.updateBase.run(r.callAt, r.callDate, r.title, r.summary, extra, '', now, id)
      const from = hourOf(old.call_at)
      const to = hourOf(r.callAt)
      if (from !== to) {
        // Memberships stored before this page move with the call; this page's are counted at its end.
        this.totals.call(from, -1)
        this.totals.call(to, 1)
        for (const scope of this.scopesOfCall.all(id)) {
          this.totals.member(scope, from, -1)
          this.totals.member(scope, to, 1)
        }
      }
      old.call_at = r.callAt
      old.call_date = r.callDate
      old.title = r.title
      old.summary = r.summary
      old.extra = extra
    }
    if (anaChanged) {
      for (const old of this.oldItems.all(id)) this.countItem(old.key_id, old.value, old.value_num, -1)
      this.deleteAnalysis.run(id)
      const values: unknown[] = []
      this.pushAnalysis(values, id, r)
      this.analysis.run(values)
      this.updateAnalysisMeta.run(r.analysis.length, '', now, id)
    }
    // A page without analysis keeps the analysis an earlier page stored, in the index too.
    const analysisText = anaChanged ? this.analysisText(r) : foldForIndex(this.analysisValues.all(id).join(' '))
    // Its stored row goes at the end of the transaction, unless it was written in this one.
    if (!this.pendingFts.has(id)) this.staleFts.push(id)
    this.pendingFts.set(id, [foldForIndex(r.title), foldForIndex(r.summary), analysisText])
    if (anaChanged) {
      old.analysis_hash = ''
      old.items = r.analysis
    }
    return true
  }

  /**
   * Adds the page's new memberships to the per-(scope, hour) totals, before they are
   * inserted: calls new in this page are new members; known calls are looked up.
   */
  private countNewMembers(pageCalls: ReadonlyMap<number, Pick<Existing, 'call_id' | 'call_at'>>, newInPage: ReadonlySet<string>, scopeId: number): void {
    const knownIds: number[] = []
    for (const [id, c] of pageCalls) {
      if (newInPage.has(c.call_id)) this.totals.member(scopeId, hourOf(c.call_at), 1)
      else knownIds.push(id)
    }
    for (let i = 0; i < knownIds.length; i += LOOKUP_CHUNK) {
      const ids = knownIds.slice(i, i + LOOKUP_CHUNK)
      let stmt = this.memberChecks.get(ids.length)
      if (!stmt) {
        stmt = this.db
          .prepare<unknown[], number>(`SELECT call FROM scope_members WHERE scope = ? AND call IN (${ids.map(() => '?').join(',')})`)
          .pluck()
        this.memberChecks.set(ids.length, stmt)
      }
      const already = new Set(stmt.all(scopeId, ...ids))
      for (const id of ids) {
        if (already.has(id)) continue
        this.totals.member(scopeId, hourOf(pageCalls.get(id)!.call_at), 1)
        if (this.newFrom === null || id < this.newFrom) this.touched.push(id)
      }
    }
  }

  private analysisText(r: CallRecord): string {
    let s = ''
    for (const a of r.analysis) s += s.length === 0 ? a.value : ` ${a.value}`
    return foldForIndex(s)
  }

  private pushAnalysis(out: unknown[], id: number, r: CallRecord): void {
    let ord = 0
    for (const a of r.analysis) {
      const keyId = this.keyId(a.key, a.friendlyName)
      const num = parseNumeric(a.value)
      this.countItem(keyId, a.value, num, 1)
      out.push(keyId, id, ord++, a.value, num)
    }
  }

  private countItem(keyId: number, value: string, num: number | null, delta: number): void {
    this.totals.item(keyId, value, num, delta)
    let s = this.keyStats.get(keyId)
    if (!s) this.keyStats.set(keyId, (s = [0, 0]))
    s[0] += delta
    if (num !== null) s[1] += delta
  }

  private keyId(key: string, friendlyName: string): number {
    let byName = this.keyIds.get(key)
    if (!byName) this.keyIds.set(key, (byName = new Map()))
    let id = byName.get(friendlyName)
    if (id === undefined) {
      this.keyInsert.run(key, friendlyName)
      id = this.keyFind.get(key, friendlyName)
      if (id === undefined) throw new Error('analysis key vanished inside its own transaction')
      byName.set(friendlyName, id)
    }
    return id
  }
}
