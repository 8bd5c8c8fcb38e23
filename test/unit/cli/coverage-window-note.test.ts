import { describe, expect, it } from 'vitest'
import { coverageWarning } from '../../../src/cli/coverage-note'
import type { QueryCoverage } from '../../../src/shared/domain'

const START = Date.parse('2026-01-01T00:00:00Z')
const gap = (from: number, to: number) => ({
  callTypes: [],
  direction: null,
  results: 'all' as const,
  hasNewRequest: null,
  analysis: false,
  from,
  to
})

describe('the CLI notice for a range outside the window', () => {
  it('says which window the file holds and how to widen it, instead of a sync of the stretch', () => {
    const c: QueryCoverage = {
      complete: false,
      from: START - 86_400_000,
      to: START + 86_400_000,
      missing: [gap(START - 86_400_000, START)],
      notices: [{ kind: 'outside-window', windowStart: START, days: 90 }]
    }
    const line = coverageWarning('search', c, 'w.sqlite', 'UTC', undefined, { team: true, everyCall: [] })!
    expect(line).toContain("Outside this workstation's window: last 90 days")
    expect(line).toContain('2026-01-01T00:00:00Z')
    expect(line).toContain('callsight pull --from URL --db w.sqlite --days N')
    expect(line).not.toContain('not synced')
  })

  it('a gap inside the window is still said, after the notice', () => {
    const c: QueryCoverage = {
      complete: false,
      from: START - 86_400_000,
      to: START + 2 * 86_400_000,
      missing: [gap(START - 86_400_000, START), gap(START + 86_400_000, START + 2 * 86_400_000)],
      notices: [{ kind: 'outside-window', windowStart: START, days: 90 }]
    }
    const lines = coverageWarning('search', c, 'w.sqlite', 'UTC')!.split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain("Outside this workstation's window")
    expect(lines[1]).toContain('not synced')
  })

  it('a complete answer with the notice (an open start) still prints the notice', () => {
    const c: QueryCoverage = {
      complete: true,
      from: START,
      to: START + 1,
      missing: [],
      notices: [{ kind: 'outside-window', windowStart: START, days: 7 }]
    }
    expect(coverageWarning('export', c, 'w.sqlite', 'UTC')).toContain("callsight export: Outside this workstation's window: last 7 days")
  })
})

describe('the CLI notice for a query outside a window of chosen scopes', () => {
  it('names the scopes held and how to choose others, instead of a sync of the gap', () => {
    const c: QueryCoverage = {
      complete: false,
      from: START,
      to: START + 86_400_000,
      missing: [gap(START, START + 86_400_000)],
      notices: [{ kind: 'outside-window', windowStart: null, days: null, scopes: ['inbound', 'vip'] }]
    }
    const line = coverageWarning('search', c, 'w.sqlite', 'UTC', undefined, { team: true, everyCall: [] })!
    expect(line).toContain(`Outside this workstation's window: the scopes "inbound", "vip" only`)
    expect(line).toContain('callsight pull --from URL --db w.sqlite --scope NAME')
    expect(line).not.toContain('--days')
    expect(line).not.toContain('not synced')
    expect(line.split('\n')).toHaveLength(1)
  })
})
