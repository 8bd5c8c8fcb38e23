import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { OLD_GENERATION_GROWTH_FLAG } from '../../../src/cli/heap-tuning'

/**
 * A pull's allocation pattern in small, in a fresh process (a test worker's heap has its own
 * history): a live set that stays, and batches of rows that live while the next batch is made,
 * then die. The flag, if any, is set after start-up, as the CLI's pull sets it. Prints the old
 * generation's largest committed size over the run, in MiB.
 */
const WORKLOAD = `
const v8 = require('node:v8')
if (process.argv[1]) v8.setFlagsFromString(process.argv[1])
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

function oldSpacePeakMb(flag: string): number {
  return Number(execFileSync(process.execPath, ['-e', WORKLOAD, flag], { encoding: 'utf8', timeout: 60_000 }))
}

describe('the pull’s bound on old-generation growth', () => {
  it('set after start-up, keeps the old generation far smaller under a pull-like load than V8’s default', () => {
    const bounded = oldSpacePeakMb(OLD_GENERATION_GROWTH_FLAG)
    const unbounded = oldSpacePeakMb('')
    expect(bounded).toBeGreaterThan(0)
    // Measured here: ~100 MiB against ~250 MiB.
    expect(bounded).toBeLessThan(unbounded * 0.6)
  })
})
