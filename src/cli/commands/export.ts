import { resolve } from 'node:path'
import { z } from 'zod'
import { openCache } from '../../core/cache'
import { CallsightError } from '../../core/errors'
import { exportCalls } from '../../core/export'
import { reviewLookup } from '../../core/review/review-service'
import { createSearch } from '../../core/search'
import { AnalysisLayout, CsvDialect, ExportColumn, ExportFormat, type ExportSelection } from '../../shared/domain'
import { check, parseFlags, parseList, parseZone, required } from '../args'
import { systemZone } from '../dates'
import { coverageContext } from '../coverage-context'
import { coverageWarning } from '../coverage-note'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { terminalLine } from '../terminal-text'
import { buildQuery, checkQueryText, QUERY_OPTIONS } from './query-flags'

const APP_VERSION = '0.1.0'

export async function exportCommand(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      db: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string' },
      ids: { type: 'string' },
      columns: { type: 'string' },
      analysis: { type: 'string' },
      'csv-dialect': { type: 'string' },
      strict: { type: 'boolean', default: false },
      ...QUERY_OPTIONS
    },
    true
  )
  const zone = parseZone(values.zone, systemZone())
  const format = check(ExportFormat, required(values.format, '--format'), '--format')
  const out = resolve(required(values.out, '--out'))
  const columns = check(
    z.array(ExportColumn).min(1),
    values.columns === undefined ? ExportColumn.options.filter((c) => c !== 'review' && c !== 'extra') : parseList(values.columns),
    '--columns'
  )
  const analysisLayout = check(AnalysisLayout, values.analysis ?? 'wide', '--analysis')
  const csvDialect = check(CsvDialect, values['csv-dialect'] ?? 'comma', '--csv-dialect')
  const ids = parseList(values.ids)
  const query = buildQuery(values, positionals, zone)
  if (ids.length > 0 && (positionals.length > 0 || values.where !== undefined || values.from !== undefined || values.to !== undefined)) {
    throw new CallsightError('InvalidInput', '--ids cannot be combined with search text or filters.')
  }
  const selection: ExportSelection = ids.length > 0 ? { kind: 'ids', ids } : { kind: 'query', query }
  const db = required(values.db, '--db')
  const cache = openCache(db, { readonly: true })
  try {
    const search = createSearch(cache)
    if (selection.kind === 'query' && !checkQueryText(query.text, search.analysisKeys(), io, 'export')) return EXIT.usage
    const coverage = selection.kind === 'query' ? search.coverage(selection.query) : undefined
    const source = { ...search.iterate(selection), review: reviewLookup(cache) }
    const result = await exportCalls({
      source,
      file: out,
      format,
      columns,
      analysisLayout,
      csvDialect,
      zone,
      meta: { query: selection, ...(coverage ? { coverage } : {}), appVersion: APP_VERSION, exportedAt: Date.now() },
      signal
    })
    io.out(`Wrote ${result.count} call(s) to ${terminalLine(result.file)}\n`)
    if (result.metaFile) io.out(`Recorded the query and its coverage in ${terminalLine(result.metaFile)}\n`)
    const warning = coverage ? coverageWarning('export', coverage, db, zone, (v) => search.describeType(v), coverageContext(cache)) : null
    if (warning !== null) io.err(`${warning}\n`)
    return warning !== null && values.strict ? EXIT.notCovered : EXIT.ok
  } finally {
    cache.close()
  }
}
