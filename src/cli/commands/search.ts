import { openCache } from '../../core/cache'
import { createSearch, type Explained } from '../../core/search'
import type { CallRecord } from '../../shared/domain'
import { parseFlags, parseIntFlag, parseZone, required } from '../args'
import { systemZone } from '../dates'
import { coverageContext } from '../coverage-context'
import { coverageWarning } from '../coverage-note'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { buildQuery, checkQueryText, QUERY_OPTIONS } from './query-flags'
import { teamSearchCommand } from './team-search'
import { TEAM_DB_FLAGS } from '../team-db'
import { CallsightError } from '../../core/errors'

const PAGE_LIMIT = 500

export async function searchCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      db: { type: 'string' },
      limit: { type: 'string' },
      offset: { type: 'string' },
      json: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      explain: { type: 'boolean', default: false },
      team: { type: 'string' },
      page: { type: 'string' },
      count: { type: 'boolean', default: false },
      'count-budget': { type: 'string' },
      'count-sample': { type: 'string' },
      ...TEAM_DB_FLAGS,
      ...QUERY_OPTIONS
    },
    true
  )
  const zone = parseZone(values.zone, systemZone())
  const query = buildQuery(values, positionals, zone)
  if (values.team !== undefined) {
    if (values.db !== undefined) throw new CallsightError('InvalidInput', 'Give --db FILE or --team URL, not both.')
    return teamSearchCommand(query, values.team, values, io)
  }
  const limit = parseIntFlag(values.limit, '--limit', 1, 10_000) ?? 20
  const offset = parseIntFlag(values.offset, '--offset', 0, 100_000_000) ?? 0
  const db = required(values.db, '--db')
  const cache = openCache(db, { readonly: true })
  try {
    const search = createSearch(cache)
    if (!checkQueryText(query.text, search.analysisKeys(), io, 'search')) return EXIT.usage
    const coverage = search.coverage(query)
    const total = search.count(query)
    // Served before the loop below reads the page again: the first serving is the one explained.
    const explained = values.explain ? search.explain(query, Math.min(PAGE_LIMIT, limit), offset) : null
    const records: CallRecord[] = []
    // The search pages at most PAGE_LIMIT rows at a time; deeper pages stay fast (keyset).
    for (let at = offset; records.length < limit;) {
      const rows = search.page(query, at, Math.min(PAGE_LIMIT, limit - records.length)).rows
      for (const row of rows) {
        const r = search.get(row.callId)
        if (r) records.push(r)
      }
      at += rows.length
      if (rows.length === 0 || at >= total) break
    }
    if (values.json) io.out(`${jsonLine({ total, items: records.map(item), coverage, ...(explained ? { explain: explained } : {}) })}\n`)
    else {
      if (explained) io.err(explainText(explained))
      for (const r of records) io.out(`${terminalLine(r.callDate)}  ${terminalLine(r.callId)}  ${terminalLine(r.title)}\n`)
      io.out(`${records.length} of ${total} call(s).\n`)
    }
    const warning = coverageWarning('search', coverage, db, zone, (v) => search.describeType(v), coverageContext(cache))
    if (warning !== null) io.err(`${warning}\n`)
    return warning !== null && values.strict ? EXIT.notCovered : EXIT.ok
  } finally {
    cache.close()
  }
}

const item = (r: CallRecord) => ({ callId: r.callId, callDate: r.callDate, title: r.title, summary: r.summary, analysis: r.analysis })

/** The explained first page, for a person: the plan, what it was chosen from, and the time it took. */
function explainText(e: Explained): string {
  const t = e.served
  const tried = t.tried.length > 0 ? ` (after ${t.tried.join(', ')} could not serve it)` : ''
  const facts = Object.entries(t.inputs).map(([k, v]) => `  ${k}: ${terminalLine(String(v))}`)
  return [
    `plan: ${t.plan}${tried}, in ${t.ms.toFixed(1)} ms`,
    `SQL rule: ${e.plan}; estimate ${Number.isNaN(e.estimate) ? 'not counted' : e.estimate} of ${e.total} calls`,
    'chosen from:',
    ...facts,
    ''
  ].join('\n')
}
