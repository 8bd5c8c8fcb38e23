import type { CallRecord } from '../../src/shared/domain'
import { SERVICE_WINDOW } from '../../src/shared/service-limits'
import { CallsightError } from '../../src/core/errors'
import type { SyncPage, SyncPageRequest, SyncSource, WaitFeed } from '../../src/core/sync'
import { prng } from './prng'

/**
 * A SyncSource without HTTP that answers get-calls over an in-memory list with the service's
 * paging rules (spec, get-calls): by start time (ascending or descending), ties by callId, the end time
 * inclusive at whole seconds, skip + take silently lowered to the 10,000 window. A script
 * says what happens to each request (by its 1-based number): an answer, a 429 the client
 * waits out (the wait is announced on the WaitFeed, as the limiter does), an error the client
 * gave up on, a dropped connection. Lets tests drive the engine's every path repeatably.
 */

const WORDS = ['fatura', 'iptal', 'şikayet', 'iade', 'kargo', 'teslimat', 'abonelik', 'ödeme', 'arıza', 'kampanya']

export function record(callId: string, callAt: number, random: () => number = () => 0.5): CallRecord {
  const word = (): string => WORDS[Math.floor(random() * WORDS.length)]!
  return {
    callId,
    callAt,
    callDate: new Date(callAt).toISOString(),
    title: `${word()} ${word()}`,
    summary: `${word()} ${word()} ${word()}`,
    analysis: [],
    extra: {}
  }
}

/** The service's order: by second, ties by callId (ordinal); descending is its reverse. */
export function serviceOrder(list: readonly CallRecord[], ascending = true): CallRecord[] {
  const sorted = [...list].sort((a, b) => a.callAt - b.callAt || (a.callId < b.callId ? -1 : a.callId > b.callId ? 1 : 0))
  return ascending ? sorted : sorted.reverse()
}

export interface GeneratedCalls {
  records: CallRecord[]
  /** The seconds that got a crowd, for assertions. */
  crowded: number[]
}

/**
 * `spread` calls at random whole seconds across [from, to), plus `crowds` seconds holding
 * `crowdSize` calls each (dense seconds that straddle the 10,000 window's edge), all from one
 * seed. Ids are unique and carry no order of their own, so ties really sort by callId.
 */
export function generateCalls(
  seed: number,
  opts: { from: number; to: number; spread: number; crowds?: number; crowdSize?: [number, number] }
): GeneratedCalls {
  const random = prng(seed)
  const seconds = Math.floor((opts.to - opts.from) / 1000)
  const records: CallRecord[] = []
  let n = 0
  const id = (): string =>
    `${Math.floor(random() * 0xffffff)
      .toString(16)
      .padStart(6, '0')}-${n++}`
  for (let i = 0; i < opts.spread; i++) records.push(record(id(), opts.from + Math.floor(random() * seconds) * 1000, random))
  const crowded: number[] = []
  const [lo, hi] = opts.crowdSize ?? [450, 1300]
  for (let c = 0; c < (opts.crowds ?? 0); c++) {
    const at = opts.from + Math.floor(random() * seconds) * 1000
    crowded.push(at)
    const size = lo + Math.floor(random() * (hi - lo + 1))
    for (let i = 0; i < size; i++) records.push(record(id(), at, random))
  }
  return { records, crowded }
}

export type Step =
  | { kind: 'answer' }
  /** A 429 the client waits out: the wait is announced, then the page is answered. */
  | { kind: 'rateLimited'; waitMs: number }
  /** What the client reports once it gives up: a 429 storm, a 5xx, a dropped connection. */
  | { kind: 'fail'; error: CallsightError }

export const failures = {
  rateLimited: (): CallsightError => new CallsightError('RateLimited', 'The service kept answering 429.', { retryAfterSeconds: 5 }),
  serverError: (): CallsightError => new CallsightError('ServerError', 'The service failed (503).', { status: 503 }),
  dropped: (): CallsightError => new CallsightError('Network', 'The connection was dropped.')
}

export interface ScriptedSourceOptions {
  records: CallRecord[]
  /** What request `n` (1-based, in launch order) meets; answered when absent. */
  script?: (n: number, params: SyncPageRequest) => Step
  /** Whether the envelope carries totalCount. */
  withTotal?: boolean
  /** Where 429 waits are announced, as the tenant limiter's onWait does. */
  waits?: WaitFeed
  /** Held before each answer; lets a test order answers against the engine's writes. */
  gate?: (n: number) => Promise<void>
}

export class ScriptedSource implements SyncSource {
  /** The service's data; assign a new array to change it (the sorted copy follows the reference). */
  records: CallRecord[]
  readonly requests: SyncPageRequest[] = []
  /** Requests whose signal was aborted before they were answered. */
  aborted = 0
  script: ScriptedSourceOptions['script']
  private sorted: { of: CallRecord[]; list: CallRecord[] } | null = null

  constructor(private readonly opts: ScriptedSourceOptions) {
    this.records = opts.records
    this.script = opts.script
  }

  async getCalls(params: SyncPageRequest, signal?: AbortSignal): Promise<SyncPage> {
    this.requests.push(params)
    const n = this.requests.length
    const step = this.script?.(n, params) ?? { kind: 'answer' }
    await Promise.resolve()
    if (this.opts.gate) await this.opts.gate(n)
    if (step.kind === 'rateLimited') {
      this.opts.waits?.emit({ ms: step.waitMs })
      await new Promise((r) => setTimeout(r, 1))
    }
    if (signal?.aborted) {
      this.aborted++
      throw new CallsightError('Cancelled', 'The request was cancelled.')
    }
    if (step.kind === 'fail') throw step.error
    return this.answer(params)
  }

  /** The page the service would give for these parameters now. */
  answer(params: SyncPageRequest): SyncPage {
    if (params.skip + params.take > SERVICE_WINDOW && params.take > 0 && params.skip < SERVICE_WINDOW) {
      // Allowed by the service (it lowers the page), but the engine must never ask for it.
      throw new Error(`skip ${params.skip} + take ${params.take} passes the window`)
    }
    const start = Math.floor(params.from / 1000) * 1000
    const end = Math.ceil(params.to / 1000) * 1000
    if (this.sorted?.of !== this.records) this.sorted = { of: this.records, list: serviceOrder(this.records) }
    const ascending = this.sorted.list.filter((r) => r.callAt >= start && r.callAt <= end)
    // Descending is the same order reversed (ties by callId descending), as the reference service does.
    const inRange = params.ascending ? ascending : ascending.reverse()
    const take = Math.max(0, Math.min(params.take, SERVICE_WINDOW - params.skip))
    const records = inRange.slice(params.skip, params.skip + take).map((r) => structuredClone(r))
    return { records, totalCount: this.opts.withTotal ? inRange.length : null, malformed: [], returned: records.length }
  }
}
