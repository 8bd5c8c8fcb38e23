/**
 * Bounds on values the service sends that nobody declared (a record's unknown fields). They
 * are kept verbatim, masked, cached as JSON and exported, and every one of those steps walks
 * them; a value nested thousands deep overflows JSON.stringify's stack, and a huge one is
 * stored and re-read for every search. Measuring here uses an explicit stack, so measuring
 * cannot overflow however deep the value goes.
 */
export interface JsonBounds {
  /** Container levels: `{}` is 1, `{"a":[1]}` is 2. */
  depth: number
  /** Roughly the bytes of the value written as JSON. */
  bytes: number
}

export type BoundsCheck = { ok: true } | { ok: false; exceeded: 'depth' | 'bytes' }

/** Bounds for a record's unknown fields, all together (the PII guard walks 32 levels). */
export const UNKNOWN_FIELD_BOUNDS: JsonBounds = { depth: 32, bytes: 256 * 1024 }

export function checkJsonBounds(value: unknown, bounds: JsonBounds): BoundsCheck {
  const stack: Array<{ v: unknown; level: number }> = [{ v: value, level: 0 }]
  let bytes = 0
  while (stack.length > 0) {
    const { v, level } = stack.pop()!
    if (typeof v === 'string') bytes += v.length + 2
    else if (v === null || typeof v !== 'object') bytes += typeof v === 'number' ? 8 : 5
    else {
      const inner = level + 1
      if (inner > bounds.depth) return { ok: false, exceeded: 'depth' }
      bytes += 2
      if (Array.isArray(v)) {
        for (const item of v) {
          bytes += 1
          stack.push({ v: item, level: inner })
        }
      } else {
        for (const [k, item] of Object.entries(v)) {
          bytes += k.length + 4
          stack.push({ v: item, level: inner })
        }
      }
    }
    if (bytes > bounds.bytes) return { ok: false, exceeded: 'bytes' }
  }
  return { ok: true }
}
