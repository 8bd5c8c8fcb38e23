/**
 * A tenant's calls as compact columns sorted by (time, key). The key is a bijective scramble
 * of the call's ordinal, and the callId starts with the key's eight hex digits, so sorting by
 * key is sorting by callId: ties within a second break by callId, which makes paging stable.
 * Text is not stored; it is rebuilt from (seed, key, version) when a call is served.
 */
import { mix, hashString, cumulate, pickWeighted } from './rng'

export const DIRECTIONS = { Inbound: 1, Outbound: 2, Internal: 3 } as const
export const RESULTS = { Answered: 1, NoAnswer: 2, Busy: 3, Abandoned: 4, Failed: 5 } as const

const DIRECTION_CUM = cumulate([70, 25, 5])
const RESULT_CUM = cumulate([76, 9, 4, 8, 3])

export interface CallAttributes {
  type: number
  direction: number
  result: number
  hasNewRequest: boolean
}

export interface ScanFilter {
  /** Lookup by type index, 1 = allowed; null = every type. */
  types: Uint8Array | null
  direction: number | null
  /** Lookup by result code, 1 = allowed; null = every result. */
  results: Uint8Array | null
  hasNewRequest: boolean | null
}

export interface ScanResult {
  total: number
  positions: number[]
}

function scramble(ordinal: number, salt: number): number {
  let k = Math.imul(ordinal, 0x9e3779b1)
  k ^= k >>> 15
  k = Math.imul(k, 0x85ebca6b)
  k ^= k >>> 13
  return (k ^ salt) >>> 0
}

function hex(n: number, width: number): string {
  return (n >>> 0)
    .toString(16)
    .padStart(8, '0')
    .slice(8 - width)
}

export class CallStore {
  n = 0
  time: Float64Array = new Float64Array(0)
  key = new Uint32Array(0)
  type = new Uint8Array(0)
  dir = new Uint8Array(0)
  res = new Uint8Array(0)
  fresh = new Uint8Array(0)
  version = new Uint16Array(0)
  /** Raw texts of calls added through addRawCall, by key. */
  readonly raw = new Map<number, { title: string; summary: string }>()
  /** Calls removed (admin removeCalls): their result code is 0, which no filter asks for. */
  removed = 0
  private nextOrdinal = 0
  /** Per result code, how many calls before each position: counts without a scan. Built lazily. */
  private resultPrefix: Uint32Array[] | null = null
  private readonly salt: number
  private readonly typeCum: Float64Array

  constructor(
    readonly tenant: string,
    readonly seed: number,
    readonly typeCount: number
  ) {
    this.salt = mix(seed, hashString(tenant))
    // A few call types dominate, as in real traffic.
    this.typeCum = cumulate(Array.from({ length: typeCount }, (_, i) => 1 / (1 + i * 0.35)))
  }

  attributes(key: number): CallAttributes {
    const h = mix(this.seed, key, 17)
    const g = mix(h, 23)
    return {
      type: pickWeighted(this.typeCum, (h & 0xffff) / 65536),
      direction: pickWeighted(DIRECTION_CUM, (h >>> 16) / 65536) + 1,
      result: pickWeighted(RESULT_CUM, (g & 0xffff) / 65536) + 1,
      hasNewRequest: (g >>> 16) % 100 < 18
    }
  }

  callId(key: number): string {
    const a = mix(key, this.salt, 1)
    const b = mix(key, this.salt, 2)
    const c = mix(key, this.salt, 3)
    return `${hex(key, 8)}-${hex(a, 4)}-4${hex(a >>> 16, 3)}-${(8 + (b & 3)).toString(16)}${hex(b >>> 8, 3)}-${hex(c, 8)}${hex(b >>> 20, 4)}`
  }

  /** Bulk load of unsorted times into an empty store: one native sort, then ties by key. */
  load(times: Float64Array): void {
    if (this.n !== 0) throw new Error('load() is for an empty store')
    times.sort()
    const n = times.length
    const key = new Uint32Array(n)
    for (let i = 0; i < n; i++) key[i] = scramble(i, this.salt)
    let runStart = 0
    for (let i = 1; i <= n; i++) {
      if (i === n || times[i] !== times[runStart]) {
        if (i - runStart > 1) key.subarray(runStart, i).sort()
        runStart = i
      }
    }
    this.nextOrdinal = n
    this.time = times
    this.key = key
    this.type = new Uint8Array(n)
    this.dir = new Uint8Array(n)
    this.res = new Uint8Array(n)
    this.fresh = new Uint8Array(n)
    this.version = new Uint16Array(n)
    for (let i = 0; i < n; i++) this.setAttributes(i, this.attributes(key[i]!))
    this.n = n
    this.resultPrefix = null
    // Built now rather than on the first request, so the first page is as fast as the rest.
    this.prefixes()
  }

  private prefixes(): Uint32Array[] {
    if (this.resultPrefix) return this.resultPrefix
    const codes = Object.values(RESULTS)
    const prefix = codes.map(() => new Uint32Array(this.n + 1))
    const running = new Uint32Array(codes.length + 1)
    for (let i = 0; i < this.n; i++) {
      running[this.res[i]! - 1]!++
      for (let c = 0; c < codes.length; c++) prefix[c]![i + 1] = running[c]!
    }
    this.resultPrefix = prefix
    return prefix
  }

  private setAttributes(i: number, a: CallAttributes): void {
    this.type[i] = a.type
    this.dir[i] = a.direction
    this.res[i] = a.result
    this.fresh[i] = a.hasNewRequest ? 1 : 0
  }

  /** Merges new calls in; attributes come from the key unless given. Returns the new keys. */
  insert(times: number[], forced?: Array<CallAttributes | undefined>): number[] {
    const m = times.length
    const keys = times.map(() => scramble(this.nextOrdinal++, this.salt))
    const order = Array.from({ length: m }, (_, j) => j).sort((a, b) => times[a]! - times[b]! || keys[a]! - keys[b]!)
    const n = this.n + m
    const time = new Float64Array(n)
    const key = new Uint32Array(n)
    const type = new Uint8Array(n)
    const dir = new Uint8Array(n)
    const res = new Uint8Array(n)
    const fresh = new Uint8Array(n)
    const version = new Uint16Array(n)
    let i = 0
    let j = 0
    for (let out = 0; out < n; out++) {
      const fromOld =
        j >= m ||
        (i < this.n && (this.time[i]! < times[order[j]!]! || (this.time[i] === times[order[j]!] && this.key[i]! < keys[order[j]!]!)))
      if (fromOld) {
        time[out] = this.time[i]!
        key[out] = this.key[i]!
        type[out] = this.type[i]!
        dir[out] = this.dir[i]!
        res[out] = this.res[i]!
        fresh[out] = this.fresh[i]!
        version[out] = this.version[i]!
        i++
      } else {
        const src = order[j]!
        time[out] = times[src]!
        key[out] = keys[src]!
        const a = forced?.[src] ?? this.attributes(keys[src]!)
        type[out] = a.type
        dir[out] = a.direction
        res[out] = a.result
        fresh[out] = a.hasNewRequest ? 1 : 0
        j++
      }
    }
    Object.assign(this, { time, key, type, dir, res, fresh, version, n })
    this.resultPrefix = null
    return keys
  }

  /** First position whose time is >= t. */
  lowerBound(t: number): number {
    let lo = 0
    let hi = this.n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.time[mid]! < t) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** First position whose time is > t. */
  upperBound(t: number): number {
    let lo = 0
    let hi = this.n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.time[mid]! <= t) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Counts matches in [lo, hi) and collects positions skip..skip+take-1 in the asked order. */
  scan(lo: number, hi: number, f: ScanFilter, skip: number, take: number, ascending: boolean): ScanResult {
    const positions: number[] = []
    const end = skip + take
    if (f.types === null && f.direction === null && f.results === null && f.hasNewRequest === null && this.removed === 0) {
      const total = Math.max(0, hi - lo)
      for (let r = skip; r < Math.min(end, total); r++) positions.push(ascending ? lo + r : hi - 1 - r)
      return { total, positions }
    }
    const { types, direction, results } = f
    if (results !== null && types === null && direction === null && f.hasNewRequest === null)
      return this.scanByResult(lo, hi, results, skip, take, ascending)
    const fresh = f.hasNewRequest === null ? -1 : f.hasNewRequest ? 1 : 0
    const T = this.type
    const D = this.dir
    const R = this.res
    const F = this.fresh
    let total = 0
    const step = ascending ? 1 : -1
    for (let p = ascending ? lo : hi - 1, left = hi - lo; left > 0; left--, p += step) {
      if (R[p] === 0) continue
      if (results !== null && results[R[p]!] === 0) continue
      if (direction !== null && D[p] !== direction) continue
      if (fresh >= 0 && F[p] !== fresh) continue
      if (types !== null && types[T[p]!] === 0) continue
      if (total >= skip && total < end) positions.push(p)
      total++
    }
    return { total, positions }
  }

  /** Stops returning these calls (a test hook: a service that drops calls); returns how many were found. */
  remove(callIds: ReadonlySet<string>): number {
    let found = 0
    for (let p = 0; p < this.n; p++) {
      if (this.res[p] === 0 || !callIds.has(this.callId(this.key[p]!))) continue
      this.res[p] = 0
      this.removed++
      found++
    }
    this.resultPrefix = null
    return found
  }

  /** The common request (a results filter only): count from prefix sums, walk only to the page's end. */
  private scanByResult(lo: number, hi: number, results: Uint8Array, skip: number, take: number, ascending: boolean): ScanResult {
    const prefix = this.prefixes()
    let total = 0
    for (let c = 0; c < prefix.length; c++) if (results[c + 1] === 1) total += prefix[c]![hi]! - prefix[c]![lo]!
    const positions: number[] = []
    const end = Math.min(skip + take, total)
    const R = this.res
    const step = ascending ? 1 : -1
    let seen = 0
    for (let p = ascending ? lo : hi - 1, left = hi - lo; left > 0 && seen < end; left--, p += step) {
      if (results[R[p]!] === 0) continue
      if (seen >= skip) positions.push(p)
      seen++
    }
    return { total, positions }
  }
}
