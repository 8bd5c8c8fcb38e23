import { describe, expect, it } from 'vitest'
import { fillDays, valueLabels } from '../../../src/renderer/src/lib/charts'
import { exportPercent, syncPercent } from '../../../src/renderer/src/lib/progress'
import { isTypingTarget } from '../../../src/renderer/src/lib/keys'

describe('chart data', () => {
  it('fills missing days with zero, in order, across a month end', () => {
    const days = fillDays([
      { day: '2026-03-02', count: 4 },
      { day: '2026-02-27', count: 1 },
      { day: '2026-03-01', count: 2 }
    ])
    expect(days).toEqual([
      { day: '2026-02-27', count: 1 },
      { day: '2026-02-28', count: 0 },
      { day: '2026-03-01', count: 2 },
      { day: '2026-03-02', count: 4 }
    ])
    expect(fillDays([])).toEqual([])
  })

  it('labels numeric buckets as ranges and text values as themselves', () => {
    const labels = valueLabels(
      [
        { value: '0.1', min: 0.1, max: 0.2, count: 3 },
        { value: 'Fatura', min: null, max: null, count: 9 },
        { value: '5', min: 5, max: 5, count: 1 }
      ],
      'tr-TR'
    )
    expect(labels).toEqual(['0,1–0,2', 'Fatura', '5'])
  })
})

describe('progress', () => {
  it('sync progress follows the position through the range', () => {
    expect(syncPercent({ phase: 'fetching', position: null, from: 0, to: 100 })).toBe(0)
    expect(syncPercent({ phase: 'fetching', position: 25, from: 0, to: 100 })).toBe(25)
    expect(syncPercent({ phase: 'fetching', position: 500, from: 0, to: 100 })).toBe(100)
    expect(syncPercent({ phase: 'done', position: 10, from: 0, to: 100 })).toBe(100)
    expect(syncPercent({ phase: 'fetching', position: 75, from: 0, to: 100, order: 'newest' })).toBe(25)
  })

  it('export progress is a share of the known total', () => {
    expect(exportPercent(0, 0)).toBe(0)
    expect(exportPercent(333, 1000)).toBe(33.3)
    expect(exportPercent(2000, 1000)).toBe(100)
    // 100 % only once the export says the file is complete, never by rounding.
    expect(exportPercent(99_999, 100_000)).toBe(99.9)
    expect(exportPercent(100_000, 100_000)).toBe(100)
  })
})

describe('keyboard', () => {
  it('single-key shortcuts stay out of text fields', () => {
    expect(isTypingTarget({ tagName: 'input' } as unknown as EventTarget)).toBe(true)
    expect(isTypingTarget({ tagName: 'TEXTAREA' } as unknown as EventTarget)).toBe(true)
    expect(isTypingTarget({ tagName: 'DIV', isContentEditable: true } as unknown as EventTarget)).toBe(true)
    expect(isTypingTarget({ tagName: 'DIV', isContentEditable: false } as unknown as EventTarget)).toBe(false)
    expect(isTypingTarget(null)).toBe(false)
  })
})
