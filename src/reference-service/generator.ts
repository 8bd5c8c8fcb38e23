/**
 * Seeded call times with a realistic shape: weekdays busier than weekends, office hours
 * busier than nights (in the tenant's zone), a few spike days, and bursts where many calls
 * share one second. Times only: everything else about a call derives from its key.
 */
import { DateTime } from 'luxon'
import { Rng, cumulate, pickWeighted, mix } from './rng'

const HOUR_WEIGHTS = [0.2, 0.1, 0.05, 0.05, 0.05, 0.1, 0.3, 0.8, 2, 4, 5, 5, 3.5, 4, 5, 4.5, 4, 3, 2, 1.5, 1, 0.8, 0.5, 0.3]
const DAY_WEIGHTS = [0.25, 1, 1, 1, 1, 0.95, 0.45] // Sunday .. Saturday
const BURST_SHARE = 0.02

interface Slots {
  start: Float64Array
  length: Float64Array
  cumulative: Float64Array
}

/** Hour slots covering [from, to) in epoch seconds, weighted by local hour and weekday. */
function hourSlots(from: number, to: number, zone: string, rng: Rng): Slots {
  const starts: number[] = []
  const lengths: number[] = []
  const weights: number[] = []
  let day = DateTime.fromSeconds(from, { zone }).startOf('day')
  while (day.toSeconds() < to) {
    const dayFactor = DAY_WEIGHTS[day.weekday % 7]! * (0.8 + rng.next() * 0.4) * (rng.chance(0.05) ? 1.8 : 1)
    const dayStart = day.toSeconds()
    const next = day.plus({ days: 1 }).toSeconds()
    for (let h = 0; h < 24; h++) {
      const s = Math.max(from, dayStart + h * 3600)
      const e = Math.min(to, next, dayStart + (h + 1) * 3600)
      if (e <= s) continue
      starts.push(s)
      lengths.push(e - s)
      weights.push(HOUR_WEIGHTS[h]! * dayFactor * ((e - s) / 3600))
    }
    day = day.plus({ days: 1 })
  }
  return { start: Float64Array.from(starts), length: Float64Array.from(lengths), cumulative: cumulate(weights) }
}

export interface TimeRange {
  from: number
  to: number
}

/** `count` call times in [from, to), epoch seconds, unsorted. */
export function generateTimes(count: number, range: TimeRange, zone: string, seed: number): Float64Array {
  const out = new Float64Array(count)
  if (count === 0 || range.to <= range.from) return out
  const rng = new Rng(mix(seed, 0x7133))
  const slots = hourSlots(range.from, range.to, zone, rng)
  if (slots.cumulative.length === 0) return out
  const second = (): number => {
    const s = pickWeighted(slots.cumulative, rng.next())
    return slots.start[s]! + Math.floor(rng.next() * slots.length[s]!)
  }
  let i = 0
  let burstLeft = count >= 200 ? Math.floor(count * BURST_SHARE) : 0
  while (burstLeft > 0) {
    const size = Math.min(burstLeft, rng.int(5, 60))
    const at = second()
    for (let k = 0; k < size; k++) out[i++] = at
    burstLeft -= size
  }
  while (i < count) out[i++] = second()
  return out
}
