/** Stretches of changed quarter hours further apart than this are read apart (a day). */
const JOIN_GAP = 96
/** More stretches than this: the whole order is read again instead. */
const STRETCHES_MAX = 256

/**
 * The date order after this connection's writes, from the order before them: the calls of
 * every stretch of time the writes touched are read again in date order (one indexed range
 * read each), the rest of the order is kept. A sync of the newest calls touches a few days,
 * so this reads thousands of ids instead of the whole cache (about a second at 1,000,000
 * calls: docs/perf-log.md, sorting by a column).
 *
 * Exact: the old order of the calls the writes did not change is still their order (their
 * call_at and call_id did not change, and quarter hours grow along it), each changed call
 * is dropped where it was and comes back inside the stretch of its new quarter hour, and
 * every call of a stretch comes from the read. Null when the writes are spread over too many
 * stretches, or the result does not hold every call once: read the order again.
 *
 * `quarters`: each id's quarter hour after the writes (noCall: no call); `changed`: the ids
 * the writes added or changed; `read(from, to)`: the ids with call_at in [from, to) in date
 * order; `quarterMs`: the length of a quarter hour; `noCall`: the quarter of an id no call has.
 */
export function mergeDateOrder(
  before: Int32Array,
  quarters: Int32Array,
  changed: Iterable<number>,
  read: (from: number, to: number) => Int32Array,
  quarterMs: number,
  noCall: number
): Int32Array | null {
  const isChanged = new Uint8Array(quarters.length)
  const touchedQuarters: number[] = []
  for (const id of changed) {
    if (id < 0 || id >= quarters.length || isChanged[id] === 1) continue
    isChanged[id] = 1
    if (quarters[id] !== noCall) touchedQuarters.push(quarters[id]!)
  }
  const stretches = stretchesOf(touchedQuarters)
  if (stretches === null) return null
  let calls = 0
  for (let id = 0; id < quarters.length; id++) if (quarters[id] !== noCall) calls++
  const out = new Int32Array(calls)
  // One tight pass (no closures: this runs over every call after each sync page).
  let n = 0
  let s = 0
  let lastA = 1
  let lastB = 0
  for (let i = 0; i < before.length; i++) {
    const id = before[i]!
    if (id >= quarters.length || isChanged[id] === 1) continue
    const q = quarters[id]!
    // Inside a stretch already read: the read held this call.
    if (q === noCall || (q >= lastA && q <= lastB)) continue
    // Stretches wholly before this call's quarter hour come first; a stretch holding it
    // comes now, with it.
    while (s < stretches.length && stretches[s]![0] <= q) {
      const [a, b] = stretches[s++]!
      n = put(out, n, read(a * quarterMs, (b + 1) * quarterMs))
      if (n < 0) return null
      lastA = a
      lastB = b
    }
    if (q >= lastA && q <= lastB) continue
    if (n >= calls) return null
    out[n++] = id
  }
  while (s < stretches.length) {
    const [a, b] = stretches[s++]!
    n = put(out, n, read(a * quarterMs, (b + 1) * quarterMs))
    if (n < 0) return null
  }
  return n === calls ? out : null
}

/** Copies `ids` into `out` at `n`; the new end, or −1 when they do not fit (the order would not hold every call once). */
function put(out: Int32Array, n: number, ids: Int32Array): number {
  if (n + ids.length > out.length) return -1
  out.set(ids, n)
  return n + ids.length
}

/** The touched quarter hours as [first, last] stretches, near ones joined; null when too many. */
function stretchesOf(touched: number[]): Array<[number, number]> | null {
  if (touched.length === 0) return []
  const qs = Int32Array.from(touched).sort()
  const out: Array<[number, number]> = [[qs[0]!, qs[0]!]]
  for (let i = 1; i < qs.length; i++) {
    const last = out[out.length - 1]!
    if (qs[i]! - last[1] <= JOIN_GAP) last[1] = qs[i]!
    else if (out.push([qs[i]!, qs[i]!]) > STRETCHES_MAX) return null
  }
  return out
}
