import { redactUrl, searchTeamCache, teamCall } from '../../core/team'
import type { CallRecord, SearchQuery, TeamCount } from '../../shared/domain'
import { parseIntFlag } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { openTeamPool, teamDbOptions } from '../team-db'

export interface TeamSearchFlags {
  page?: string
  limit?: string
  count?: boolean
  'count-budget'?: string
  'count-sample'?: string
  json?: boolean
  schema?: string
  'ssl-mode'?: string
  'ssl-ca'?: string
}

/** A count as a person reads it ("about N" for an estimate), and what an estimate adds after the sentence. */
function countText(c: TeamCount): { n: string; after: string } {
  if (c.kind === 'exact') return { n: String(c.n), after: '' }
  return {
    n: `about ${c.about}`,
    after: c.exactTimedOut ? ' (an estimate: the exact count took longer than its budget)' : ' (an estimate)'
  }
}

/**
 * `callsight search --team postgres://… "query" [--page N] [--count]`: one page of
 * the query answered by the team cache in place (read-only, as this login), for calls the
 * workstation does not hold. The password comes from PGPASSWORD or ~/.pgpass. With --count
 * the page comes with an estimate of the matches ("about N"), then the exact count follows
 * (within --count-budget seconds; past it the estimate stays, said as one).
 */
export async function teamSearchCommand(query: SearchQuery, url: string, values: TeamSearchFlags, io: Io): Promise<number> {
  const opts = teamDbOptions(url, values)
  const limit = parseIntFlag(values.limit, '--limit', 1, 1000) ?? 20
  const page = parseIntFlag(values.page, '--page', 1, 1_000_000) ?? 1
  const budgetS = parseIntFlag(values['count-budget'], '--count-budget', 1, 3600)
  const sampleRows = parseIntFlag(values['count-sample'], '--count-sample', 10, 10_000_000)
  const pool = openTeamPool(opts, 1)
  try {
    const team = {
      pool,
      schema: opts.schema,
      ...(budgetS !== undefined ? { exactBudgetMs: budgetS * 1000 } : {}),
      ...(sampleRows !== undefined ? { sampleRows } : {})
    }
    const found = await searchTeamCache(team, query, { offset: (page - 1) * limit, limit, count: values.count ? 'estimate' : null })
    const records: CallRecord[] = []
    for (const row of found.page.rows) {
      const r = await teamCall(team, row.callId)
      if (r) records.push(r)
    }
    const notice = found.unindexed
      ? 'Some calls of the team cache are not indexed for search yet: its owner finishes with callsight team search enable.'
      : null
    // The estimate is shown (text) before the exact count is asked: that one may take seconds.
    const first = found.total
    const exactAfter = (): Promise<TeamCount | null> =>
      first?.kind === 'estimate'
        ? searchTeamCache(team, query, { offset: 0, limit: 0, count: 'exact' }).then((r) => r.total)
        : Promise.resolve(first)
    if (values.json) {
      const items = records.map((r) => ({
        callId: r.callId,
        callDate: r.callDate,
        title: r.title,
        summary: r.summary,
        analysis: r.analysis
      }))
      const total = await exactAfter()
      const estimate = first?.kind === 'estimate' ? { estimate: first } : {}
      io.out(`${jsonLine({ source: redactUrl(url), page, limit, total, ...estimate, items, ...(notice ? { notice } : {}) })}\n`)
    } else {
      for (const r of records) io.out(`${terminalLine(r.callDate)}  ${terminalLine(r.callId)}  ${terminalLine(r.title)}\n`)
      const of = first === null ? null : countText(first)
      io.out(`Page ${page}: ${records.length}${of ? ` of ${of.n}` : ''} call(s) in the team cache${of?.after ?? ''}.\n`)
      if (notice) io.err(`${notice}\n`)
      if (first?.kind === 'estimate') {
        const total = await exactAfter()
        if (total) {
          const all = countText(total)
          io.out(`In all: ${all.n} call(s)${all.after}.\n`)
        }
      }
    }
    return EXIT.ok
  } finally {
    await pool.end()
  }
}
