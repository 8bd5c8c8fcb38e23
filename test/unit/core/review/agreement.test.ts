import { describe, expect, it } from 'vitest'
import { krippendorffAlpha, percentAgreement, spreadOf, type Unit } from '../../../../src/core/review/agreement'

/** Reliability data as coders' rows (null: no answer), turned into units (columns). */
function units(rows: ReadonlyArray<ReadonlyArray<number | null>>): Unit[] {
  return rows[0]!.map((_, i) => rows.map((r) => r[i]!))
}

describe("Krippendorff's alpha", () => {
  // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four
  // observers, twelve units, missing answers; the paper gives .743 nominal, .815 ordinal,
  // .849 interval.
  const krippendorff = units([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
    [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null]
  ])

  it("matches Krippendorff's own four-observer example for each metric", () => {
    expect(krippendorffAlpha(krippendorff, 'nominal')).toBeCloseTo(0.743, 3)
    expect(krippendorffAlpha(krippendorff, 'ordinal')).toBeCloseTo(0.815, 3)
    expect(krippendorffAlpha(krippendorff, 'interval')).toBeCloseTo(0.849, 3)
  })

  it('matches the three-coder example with missing answers (nominal 0.691)', () => {
    const wiki = units([
      [null, null, null, null, null, 3, 4, 1, 2, 1, 1, 3, 3, null, 3],
      [1, null, 2, 1, 3, 3, 4, 3, null, null, null, null, null, null, null],
      [null, null, 2, 1, 3, 4, 4, null, 2, 1, 1, 3, 3, null, 4]
    ])
    expect(krippendorffAlpha(wiki, 'nominal')).toBeCloseTo(0.691, 3)
  })

  it('computes a small pass/fail case worked by hand', () => {
    // Units (1,1), (0,0), (1,0): the coincidences are o00 = 2, o11 = 2,
    // o01 = o10 = 1, n0 = n1 = 3, n = 6; D_o = 2/6, D_e = 2·3·3/(6·5) = 0.6;
    // alpha = 1 − (1/3)/0.6 = 4/9.
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [0, 0],
          [1, 0]
        ],
        'nominal'
      )
    ).toBeCloseTo(4 / 9, 10)
  })

  it('is 1 for perfect agreement and undefined when nothing varies or nothing pairs', () => {
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [3, 3, 3],
          [5, null, 5]
        ],
        'interval'
      )
    ).toBe(1)
    expect(
      krippendorffAlpha(
        [
          [2, 2],
          [2, 2]
        ],
        'nominal'
      )
    ).toBeNull()
    expect(krippendorffAlpha([[2, null], [3]], 'nominal')).toBeNull()
    expect(krippendorffAlpha([], 'ordinal')).toBeNull()
  })

  it('falls below zero for systematic disagreement', () => {
    expect(
      krippendorffAlpha(
        [
          [0, 1],
          [1, 0],
          [0, 1],
          [1, 0]
        ],
        'nominal'
      )!
    ).toBeLessThan(0)
  })
})

describe('percent agreement and spread', () => {
  it('counts equal pairs within units', () => {
    // (1,1,2): 1 of 3 pairs; (3,3): 1 of 1; (4): no pair.
    expect(
      percentAgreement([
        [1, 1, 2],
        [3, 3],
        [4, null]
      ])
    ).toBeCloseTo(2 / 4, 10)
    expect(percentAgreement([[4, null]])).toBeNull()
  })

  it('gives min, max and the standard deviation', () => {
    expect(spreadOf([2, 4, null, 4, 4, 5, 5, 7, 9])).toEqual({ min: 2, max: 9, sd: 2, count: 8 })
    expect(spreadOf([null])).toBeNull()
  })
})
