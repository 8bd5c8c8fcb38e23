import { describe, expect, it } from 'vitest'
import { chartCsv, chartFileName } from '../../../src/renderer/src/lib/chartExport'
import { emptyFilters } from '../../../src/renderer/src/lib/query'
import {
  below,
  drillColumn,
  drillDay,
  drillPeriod,
  drillValue,
  queryChips,
  type ChipFormat
} from '../../../src/renderer/src/lib/queryChips'

const fmt: ChipFormat = {
  range: (from, to) => `${from}..${to}`,
  count: (n) => String(n),
  keyName: (key) => (key === 'sentiment' ? 'Duygu Durumu' : key),
  typeName: (v) => `type ${v}`,
  fieldName: (field) => (field === 'agentName' ? 'Temsilci' : field)
}

describe('the active query as chips', () => {
  it('shows every part of the query, analysis filters included, and removes each alone', () => {
    const f = {
      ...emptyFilters(),
      text: 'iptal',
      from: 1000,
      to: 2000,
      callTypes: ['A', 'B'],
      direction: 2,
      results: 'answered' as const,
      analysis: [
        { kind: 'equals' as const, key: 'sentiment', value: 'Negative' },
        { kind: 'range' as const, key: 'score', min: null, max: 50 },
        { kind: 'equals' as const, key: '', value: 'unfinished' }
      ]
    }
    const chips = queryChips(f, fmt)
    expect(chips.map((c) => c.id)).toEqual([
      'text',
      'dates',
      'type:A',
      'type:B',
      'direction',
      'results',
      'analysis:sentiment=Negative',
      'analysis:score:..50'
    ])
    expect(chips.find((c) => c.id === 'analysis:sentiment=Negative')).toMatchObject({
      label: { key: 'insight.chipAnalysis', params: { name: 'Duygu Durumu' } },
      value: '= Negative'
    })
    expect(chips.find((c) => c.id === 'analysis:score:..50')?.value).toBe('… – 50')

    chips.find((c) => c.id === 'analysis:sentiment=Negative')!.remove(f)
    expect(f.analysis.map((a) => a.key)).toEqual(['score', ''])
    chips.find((c) => c.id === 'type:A')!.remove(f)
    expect(f.callTypes).toEqual(['B'])
    chips.find((c) => c.id === 'dates')!.remove(f)
    expect([f.from, f.to, f.relativeDays]).toEqual([null, null, null])
    chips.find((c) => c.id === 'text')!.remove(f)
    expect(f.text).toBe('')
    // Answered only is the default (the service's) and still a filter on every count: it shows.
    expect(queryChips(emptyFilters(), fmt).map((c) => c.id)).toEqual(['results'])
    expect(queryChips({ ...emptyFilters(), results: 'all' }, fmt)).toEqual([])
  })
})

describe('drilling down from a chart', () => {
  it('narrows the range to the clicked day in the display zone', () => {
    const f = { ...emptyFilters(), relativeDays: 30 }
    drillDay(f, '2026-11-23', 'Europe/Istanbul')
    expect(f.from).toBe(Date.UTC(2026, 10, 22, 21))
    expect(f.to).toBe(Date.UTC(2026, 10, 23, 21))
    expect(f.relativeDays).toBeNull()
  })

  it('adds the clicked value, or the numeric bucket, replacing a filter on the same key', () => {
    const f = { ...emptyFilters(), analysis: [{ kind: 'equals' as const, key: 'sentiment', value: 'Positive' }] }
    drillValue(f, 'sentiment', { value: 'Negative', min: null, max: null, count: 3 })
    expect(f.analysis).toEqual([{ kind: 'equals', key: 'sentiment', value: 'Negative' }])
    drillValue(f, 'score', { value: '40–50', min: 40, max: 50, count: 9 })
    expect(f.analysis).toEqual([
      { kind: 'equals', key: 'sentiment', value: 'Negative' },
      { kind: 'range', key: 'score', min: 40, max: below(50) }
    ])
    expect(below(50)).toBeLessThan(50)
    expect(below(50)).toBeGreaterThan(49.999999)
    expect(below(-1)).toBeLessThan(-1)
    expect(below(0)).toBeLessThan(0)
  })

  it('drills into the closed last bucket with its upper bound included (a score of 100 is in 90–100)', () => {
    const f = emptyFilters()
    drillValue(f, 'score', { value: '90 – 100', min: 90, max: 100, count: 4, closed: true })
    expect(f.analysis).toEqual([{ kind: 'range', key: 'score', min: 90, max: 100 }])
  })
})

describe('drilling down from the breakdown and the trend', () => {
  it('adds the bar of a column: a call type, an analysis value, an agent, a duration range', () => {
    const f = emptyFilters()
    drillColumn(f, 'callType', { value: 'Fatura', min: null, max: null, count: 3 })
    expect(f.callTypes).toEqual(['Fatura'])
    drillColumn(f, 'analysis:sentiment', { value: 'Olumsuz', min: null, max: null, count: 3 })
    expect(f.analysis).toEqual([{ kind: 'equals', key: 'sentiment', value: 'Olumsuz' }])
    drillColumn(f, 'extra:agentName', { value: 'Ayşe', min: null, max: null, count: 3 })
    drillColumn(f, 'extra:agentName', { value: 'Cem', min: null, max: null, count: 3 })
    drillColumn(f, 'extra:durationSeconds', { value: '60 – 120', min: 60, max: 120, count: 3 })
    expect(f.fields).toEqual([
      { kind: 'equals', field: 'agentName', value: 'Cem' },
      { kind: 'range', field: 'durationSeconds', min: 60, max: below(120) }
    ])
    const chips = queryChips(f, fmt)
    const agent = chips.find((c) => c.id === 'field:agentName=Cem')!
    expect(agent).toMatchObject({ label: { key: 'insight.chipAnalysis', params: { name: 'Temsilci' } }, value: '= Cem' })
    agent.remove(f)
    expect(f.fields.map((x) => x.field)).toEqual(['durationSeconds'])
  })

  it('narrows the range to the clicked day or Monday-to-Sunday week in the zone', () => {
    const f = emptyFilters()
    drillPeriod(f, '2026-03-30', 'week', 'Europe/Istanbul')
    expect(f.from).toBe(Date.UTC(2026, 2, 29, 21))
    expect(f.to).toBe(Date.UTC(2026, 3, 5, 21))
    drillPeriod(f, '2026-03-31', 'day', 'Europe/Istanbul')
    expect([f.from, f.to]).toEqual([Date.UTC(2026, 2, 30, 21), Date.UTC(2026, 2, 31, 21)])
  })
})

describe('chart data as CSV', () => {
  it('writes RFC 4180 with a BOM, quoting and formula neutralization', () => {
    expect(
      chartCsv(
        ['Gün', 'Çağrı'],
        [
          ['2026-11-23', 1400],
          ['=1+1', 2],
          ['a,"b"', 3]
        ]
      )
    ).toBe('\uFEFFGün,Çağrı\r\n2026-11-23,1400\r\n\'=1+1,2\r\n"a,""b""",3\r\n')
  })

  it('names files after the chart title', () => {
    expect(chartFileName('Günlük çağrı sayısı', 'csv')).toBe('günlük-çağrı-sayısı.csv')
    expect(chartFileName('  ', 'png')).toBe('chart.png')
  })
})
