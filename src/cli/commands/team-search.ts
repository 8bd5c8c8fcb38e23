import { redactUrl, searchTeamCache, teamCall } from '../../core/team'
import type { CallRecord, SearchQuery } from '../../shared/domain'
import { parseIntFlag } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { openTeamPool, teamDbOptions } from '../team-db'

export interface TeamSearchFlags {
  page?: string
  limit?: string
  count?: boolean
  json?: boolean
  schema?: string
  'ssl-mode'?: string
  'ssl-ca'?: string
}

/**
 * `callsight search --team postgres://… "query" [--page N] [--count]`: one page of
 * the query answered by the team cache in place (read-only, as this login), for calls the
 * workstation does not hold. The password comes from PGPASSWORD or ~/.pgpass.
 */
export async function teamSearchCommand(query: SearchQuery, url: string, values: TeamSearchFlags, io: Io): Promise<number> {
  const opts = teamDbOptions(url, values)
  const limit = parseIntFlag(values.limit, '--limit', 1, 1000) ?? 20
  const page = parseIntFlag(values.page, '--page', 1, 1_000_000) ?? 1
  const pool = openTeamPool(opts, 1)
  try {
    const team = { pool, schema: opts.schema }
    const found = await searchTeamCache(team, query, { offset: (page - 1) * limit, limit, count: values.count === true })
    const records: CallRecord[] = []
    for (const row of found.page.rows) {
      const r = await teamCall(team, row.callId)
      if (r) records.push(r)
    }
    const notice = found.unindexed
      ? 'Some calls of the team cache are not indexed for search yet: its owner finishes with callsight team search enable.'
      : null
    if (values.json) {
      const items = records.map((r) => ({
        callId: r.callId,
        callDate: r.callDate,
        title: r.title,
        summary: r.summary,
        analysis: r.analysis
      }))
      io.out(`${jsonLine({ source: redactUrl(url), page, limit, total: found.total, items, ...(notice ? { notice } : {}) })}\n`)
    } else {
      for (const r of records) io.out(`${terminalLine(r.callDate)}  ${terminalLine(r.callId)}  ${terminalLine(r.title)}\n`)
      const of = found.total === null ? '' : ` of ${found.total}`
      io.out(`Page ${page}: ${records.length}${of} call(s) in the team cache.\n`)
      if (notice) io.err(`${notice}\n`)
    }
    return EXIT.ok
  } finally {
    await pool.end()
  }
}
