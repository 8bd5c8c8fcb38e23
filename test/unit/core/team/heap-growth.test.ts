import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { budget } from '../../../support/budget'
import { BOUNDED_GROWTH_FLAG, createHeapGrowthBound, DEFAULT_GROWTH_FLAG } from '../../../../src/core/team/heap-growth'

/**
 * A pull's allocation pattern in small, in a fresh process (a test worker's heap has its own
 * history): a live set that stays, and batches of rows that live while the next batch is made,
 * then die. The flags, if any, are set after start-up, in order, as a pull sets them. Prints the
 * old generation's largest committed size over the run, in MiB.
 */
const WORKLOAD = `
const v8 = require('node:v8')
for (const flag of process.argv.slice(1)) v8.setFlagsFromString(flag)
const live = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'x'.repeat(20) + i }))
const inFlight = []
let peak = 0
for (let b = 0; b < 400; b++) {
  const batch = []
  for (let i = 0; i < 4000; i++) batch.push({ id: 'call-' + b + '-' + i, text: 'lorem ipsum '.repeat(8) + i, a: [i, i + 1, i + 2] })
  inFlight.push(batch)
  if (inFlight.length > 2) inFlight.shift()
  peak = Math.max(peak, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size)
}
process.stdout.write(String(live.length === 200000 ? peak / 2 ** 20 : -1))
`

function oldSpacePeakMb(...flags: string[]): number {
  return Number(execFileSync(process.execPath, ['-e', WORKLOAD, ...flags], { encoding: 'utf8', timeout: 60_000 }))
}

describe('the pull’s bound on old-generation growth', () => {
  it(
    'set after start-up, keeps the old generation far smaller under a pull-like load than V8’s default, and lifted gives it back',
    budget(6_000),
    () => {
      const bounded = oldSpacePeakMb(BOUNDED_GROWTH_FLAG)
      const unbounded = oldSpacePeakMb()
      const lifted = oldSpacePeakMb(BOUNDED_GROWTH_FLAG, DEFAULT_GROWTH_FLAG)
      expect(bounded).toBeGreaterThan(0)
      // Measured here: ~100 MiB against ~250 MiB.
      expect(bounded).toBeLessThan(unbounded * 0.6)
      expect(lifted).toBeGreaterThan(bounded / 0.6)
    }
  )

  it('holds while any pull holds it: the last release gives V8 its default back, once', () => {
    const set: string[] = []
    const bound = createHeapGrowthBound((flags) => set.push(flags))
    const first = bound()
    const second = bound()
    first()
    first()
    expect(set).toEqual([BOUNDED_GROWTH_FLAG])
    second()
    const third = bound()
    third()
    expect(set).toEqual([BOUNDED_GROWTH_FLAG, DEFAULT_GROWTH_FLAG, BOUNDED_GROWTH_FLAG, DEFAULT_GROWTH_FLAG])
  })
})
