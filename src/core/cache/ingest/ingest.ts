import type Database from 'better-sqlite3'
import type { CallRecord } from '../../../shared/domain'
import { BulkInsert } from './bulk'
import { itemStoreFor, type ItemStore, type StoredItem } from './item-store'
import { foldedAnalysis, foldForIndex } from '../fold'
import { parseNumeric } from '../numeric'
import { extraJson } from '../records'
import { IndexRows } from './index-rows'
import { KnownCalls, sameItems, type KnownCall } from './known-calls'
import { FacetTotals, hourOf } from '../totals'

export interface PageCounts {
  inserted: number
  updated: number
  unchanged: number
}

/**
 * Upserts a page of records. Called inside the page transaction; never opens one itself.
 * New calls (the bulk of any first sync) are written with multi-row statements; changed
 * calls, which are rare, go one by one; unchanged calls cost only their share of one
 * lookup and of one membership insert.
 */
export class RecordWriter {
  private readonly known: KnownCalls
  private readonly index: IndexRows
  private readonly nextId: Database.Statement<[], number>
  private readonly updateBase: Database.Statement
  private readonly updateAnalysisMeta: Database.Statement
  private readonly keyInsert: Database.Statement
  private readonly keyFind: Database.Statement<[string, string], number>
  /** key → friendly name → id: nested, so no string is built per item. */
  private readonly keyIds = new Map<string, Map<string, number>>()
  /** Per key id: [items, numeric items] added (or removed, negative) by the current page. */
  private readonly keyStats = new Map<number, [number, number]>()
  private readonly scopesOfCall: Database.Statement<[number], number>
  /** Calls written without a scope in this transaction (a pull), for addMembers. */
  private readonly unscoped = new Map<string, { id: number; call_at: number; fresh: boolean }>()
  private readonly totals: FacetTotals
  private readonly bumpKey: Database.Statement
  private readonly calls: BulkInsert
  private readonly analysis: ItemStore
  /** The first id given to a new call in this transaction, if any. */
  newFrom: number | null = null
  /** Calls stored before this transaction that it changed or added to a scope. */
  touched: number[] = []
  private readonly members: BulkInsert

  constructor(db: Database.Database) {
    this.known = new KnownCalls(db)
    this.index = new IndexRows(db)
    this.nextId = db.prepare<[], number>('SELECT coalesce(max(id), 0) + 1 FROM calls').pluck()
    this.updateBase = db.prepare(
      'UPDATE calls SET call_at = ?, call_date = ?, title = ?, summary = ?, extra = ?, last_changed_at = ? WHERE id = ?'
    )
    this.updateAnalysisMeta = db.prepare('UPDATE calls SET analysis_count = ?, analysis_known = 1, last_changed_at = ? WHERE id = ?')
    this.scopesOfCall = db.prepare<[number], number>('SELECT scope FROM scope_members WHERE call = ?').pluck()
    this.totals = new FacetTotals(db)
    this.bumpKey = db.prepare('UPDATE analysis_keys SET items = items + ?, numeric_items = numeric_items + ? WHERE id = ?')
    this.keyInsert = db.prepare('INSERT OR IGNORE INTO analysis_keys (key, friendly_name) VALUES (?, ?)')
    this.keyFind = db.prepare<[string, string], number>('SELECT id FROM analysis_keys WHERE key = ? AND friendly_name = ?').pluck()
    this.calls = new BulkInsert(
      db,
      'INSERT INTO calls (id, call_id, call_at, call_date, title, summary, extra, analysis_count, analysis_known, first_seen_at, last_changed_at)',
      11,
      100
    )
    this.analysis = itemStoreFor(db)
    this.members = new BulkInsert(db, 'INSERT OR IGNORE INTO scope_members (call, scope)', 2, 500)
  }

  /** Index rows go to `to` instead of the index (deferred-index.ts); null: to the index again. */
  divertIndex(to: ((batch: { stale: number[]; ids: number[] }) => void) | null): void {
    this.index.divert = to
  }

  /** Forget cached key ids (after the tables were emptied). */
  reset(): void {
    this.index.forgetTerms()
    this.keyIds.clear()
    this.analysis.forget()
    this.keyStats.clear()
    this.totals.reset()
  }

  /**
   * After a transaction rolled back: key ids learnt in it may name rows that are gone, so
   * they are read again.
   */
  rolledBack(): void {
    this.index.forgetTerms()
    this.keyIds.clear()
    this.analysis.forget()
  }

  /** Starts a transaction's worth of pages: forgets what a failed one left (it rolled back). */
  begin(): void {
    this.calls.discard()
    this.analysis.discard()
    this.members.discard()
    this.newFrom = null
    this.touched = []
    this.keyStats.clear()
    this.totals.reset()
    this.index.reset()
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
    // The full-text rows go last, after every other insert (IndexRows says why).
    this.index.write()
  }

  /**
   * One page, between begin() and finish(), inside the caller's transaction. Without a scope
   * (a team-cache pull, whose memberships travel apart: addMembers) no membership is written.
   */
  write(records: readonly CallRecord[], scopeId: number | null, includeAnalysis: boolean, now: number): PageCounts {
    const counts: PageCounts = { inserted: 0, updated: 0, unchanged: 0 }
    const known = this.known.find(records, includeAnalysis)
    let next = this.nextId.get() ?? 1
    const newInPage = new Set<string>()
    /** Each call of the page once, with its final call_at. */
    const pageCalls = new Map<number, KnownCall>()
    const flush = (): void => {
      this.calls.flush()
      this.analysis.flush()
    }
    for (const r of records) {
      const extra = extraJson(r.extra)
      const old = known.get(r.callId)
      let id: number
      if (old === undefined) {
        id = next++
        if (this.newFrom === null) this.newFrom = id
        // The same callId twice in one page: the later copy is an update of the first.
        const analysisKnown: 0 | 1 = includeAnalysis ? 1 : 0
        known.set(r.callId, {
          call_id: r.callId,
          id,
          call_at: r.callAt,
          call_date: r.callDate,
          title: r.title,
          summary: r.summary,
          extra,
          analysis_known: analysisKnown,
          items: includeAnalysis ? r.analysis : []
        })
        this.totals.call(hourOf(r.callAt), 1)
        newInPage.add(r.callId)
        const calls = this.calls
        calls.put(id)
        calls.put(r.callId)
        calls.put(r.callAt)
        calls.put(r.callDate)
        calls.put(r.title)
        calls.put(r.summary)
        calls.put(extra)
        calls.put(includeAnalysis ? r.analysis.length : 0)
        calls.put(analysisKnown)
        calls.put(now)
        calls.put(now)
        if (includeAnalysis) this.putAnalysis(id, r)
        this.index.add(
          id,
          this.index.wantsRows ? [foldForIndex(r.title), foldForIndex(r.summary), includeAnalysis ? foldedAnalysis(r) : ''] : null
        )
        counts.inserted++
      } else {
        id = old.id
        // The first copy may still wait in the bulk buffers; it must be stored before an update.
        if (newInPage.has(r.callId)) flush()
        if (this.update(old, r, extra, includeAnalysis, now)) {
          counts.updated++
          if (this.newFrom === null || id < this.newFrom) this.touched.push(id)
        } else counts.unchanged++
      }
      pageCalls.set(id, known.get(r.callId)!)
    }
    flush()
    if (scopeId === null) {
      for (const [id, c] of pageCalls)
        this.unscoped.set(c.call_id, { id, call_at: c.call_at, fresh: this.newFrom !== null && id >= this.newFrom })
      return counts
    }
    this.countNewMembers(pageCalls, newInPage, scopeId)
    // Each call of the page once (a callId twice in a page is one membership).
    for (const id of pageCalls.keys()) {
      this.members.put(id)
      this.members.put(scopeId)
    }
    this.members.flush()
    return counts
  }

  /**
   * Adds calls already stored to a scope (a team-cache pull), counted in the facet totals
   * like a sync page's memberships. Unknown callIds are returned, not stored.
   */
  addMembers(callIds: readonly string[], scopeId: number): string[] {
    const found = new Map<number, Pick<KnownCall, 'call_id' | 'call_at'>>()
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
      if (c.fresh) fresh.add(callId)
    }
    const stored = unknown.length === 0 ? [] : this.known.stored(unknown)
    for (const row of stored) found.set(row.id, row)
    this.countNewMembers(found, fresh, scopeId)
    for (const id of found.keys()) {
      this.members.put(id)
      this.members.put(scopeId)
    }
    this.members.flush()
    // Every call named was found (the usual case) unless fewer were, or a name came twice.
    if (found.size === callIds.length) return []
    const seen = new Set<string>()
    for (const c of found.values()) seen.add(c.call_id)
    return [...new Set(callIds.filter((id) => !seen.has(id)))]
  }

  /**
   * Rewrites a known call when its content differs from what is stored; false when nothing
   * changed. Analysis is compared only when the page carries it (a page without analysis
   * says nothing about it); a call first stored without analysis takes it the first time.
   */
  private update(old: KnownCall, r: CallRecord, extra: string, includeAnalysis: boolean, now: number): boolean {
    const baseChanged =
      old.call_at !== r.callAt || old.call_date !== r.callDate || old.title !== r.title || old.summary !== r.summary || old.extra !== extra
    const anaChanged = includeAnalysis && (old.analysis_known === 0 || !sameItems(old.items, r.analysis))
    if (!baseChanged && !anaChanged) return false
    const id = old.id
    if (baseChanged) {
      this.updateBase.run(r.callAt, r.callDate, r.title, r.summary, extra, now, id)
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
      for (const old of this.analysis.stored(id)) this.countItem(old.keyId, old.value, old.num, -1)
      this.analysis.delete(id)
      this.putAnalysis(id, r)
      this.analysis.flush()
      this.updateAnalysisMeta.run(r.analysis.length, now, id)
    }
    // A page without analysis keeps the analysis an earlier page stored, in the index too.
    if (!this.index.wantsRows) this.index.replace(id, null)
    else {
      const analysisText = anaChanged
        ? foldedAnalysis(r)
        : foldForIndex(
            this.analysis
              .stored(id)
              .map((i) => i.value)
              .join(' ')
          )
      this.index.replace(id, [foldForIndex(r.title), foldForIndex(r.summary), analysisText])
    }
    if (anaChanged) {
      old.analysis_known = 1
      old.items = r.analysis
    }
    return true
  }

  /**
   * Adds the page's new memberships to the per-(scope, hour) totals, before they are
   * inserted: calls new in this page are new members; known calls are looked up.
   */
  private countNewMembers(
    pageCalls: ReadonlyMap<number, Pick<KnownCall, 'call_id' | 'call_at'>>,
    newInPage: ReadonlySet<string>,
    scopeId: number
  ): void {
    const knownIds: number[] = []
    for (const [id, c] of pageCalls) {
      if (newInPage.has(c.call_id)) this.totals.member(scopeId, hourOf(c.call_at), 1)
      else knownIds.push(id)
    }
    const already = this.known.membersOf(scopeId, knownIds)
    for (const id of knownIds) {
      if (already.has(id)) continue
      this.totals.member(scopeId, hourOf(pageCalls.get(id)!.call_at), 1)
      if (this.newFrom === null || id < this.newFrom) this.touched.push(id)
    }
  }

  /** A call's items into the analysis insert (in the table after its flush), counted in the totals. */
  private putAnalysis(id: number, r: CallRecord): void {
    const items: StoredItem[] = []
    for (const a of r.analysis) {
      const keyId = this.keyId(a.key, a.friendlyName)
      const num = parseNumeric(a.value)
      this.countItem(keyId, a.value, num, 1)
      items.push({ keyId, value: a.value, num })
    }
    this.analysis.put(id, items)
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
