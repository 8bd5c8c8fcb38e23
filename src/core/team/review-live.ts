import type pg from 'pg'
import type { ReviewQueue } from '../../shared/team'
import type { CallCache } from '../cache'
import { REVIEW_CHANNEL } from './pg-migration-7'
import { syncReview } from './review-sync'

export interface ReviewLiveOptions {
  /** Push and pull go through it (one connection is enough). */
  pool: pg.Pool
  /** The listening connection's own pool: it holds its one connection for as long as it lives. */
  listenPool: pg.Pool
  schema: string
  /** The cache to sync; null while none is open (the sync waits). */
  cache: () => CallCache | null
  /** After each sync: the queue as it now stands (and the pull's error, if any). */
  onSynced?: (queue: ReviewQueue) => void
  /** Reconnect back-off: first wait and the longest; default 500 ms doubling to 30 s. */
  backoff?: { firstMs: number; maxMs: number }
  /** A burst of saves is pushed once, this long after the first; default 50 ms. */
  saveDelayMs?: number
}

/**
 * Review work delivered live while the app is connected to the team cache: one connection
 * holds `LISTEN callsight_review` (every shared review table announces its commits,
 * pg-migration-7.ts) and a notification for this schema runs the review sync (push, then
 * pull); a local save runs it too, shortly after, so the change reaches the others at once.
 * Syncs never overlap: requests while one runs are coalesced into one more run after it.
 * A lost listening connection is opened again with back-off, and a sync runs once it is back
 * (whatever was announced meanwhile was missed).
 */
export class ReviewLive {
  private client: pg.PoolClient | null = null
  private stopped = false
  private running: Promise<void> | null = null
  private again = false
  private retry: NodeJS.Timeout | null = null
  private saveTimer: NodeJS.Timeout | null = null
  private wait: number
  /** Syncs run so far (tests wait on it; the app shows nothing of it). */
  syncs = 0

  constructor(private readonly opts: ReviewLiveOptions) {
    this.wait = opts.backoff?.firstMs ?? 500
  }

  get listening(): boolean {
    return this.client !== null
  }

  start(): void {
    void this.listen()
  }

  /** A local save (or undo, or a lead's change): pushed shortly, a burst at once. */
  saved(): void {
    if (this.stopped || this.saveTimer) return
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null
      this.request()
    }, this.opts.saveDelayMs ?? 50)
  }

  /** Runs the sync now, or once more after the one running. */
  request(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = (async () => {
      try {
        do {
          this.again = false
          const cache = this.opts.cache()
          if (!cache) break
          const queue = await syncReview(this.opts.pool, this.opts.schema, cache)
          this.syncs++
          this.opts.onSynced?.(queue)
        } while (this.again && !this.stopped)
      } finally {
        this.running = null
      }
    })()
    return this.running
  }

  private async listen(): Promise<void> {
    if (this.stopped) return
    let client: pg.PoolClient | null = null
    try {
      client = await this.opts.listenPool.connect()
      const lost = (): void => this.lost(client!)
      client.on('error', lost)
      client.on('end', lost)
      client.on('notification', (n) => {
        if (n.channel === REVIEW_CHANNEL && n.payload?.startsWith(`${this.opts.schema}:`)) void this.request()
      })
      await client.query(`LISTEN ${REVIEW_CHANNEL}`)
      if (this.stopped) {
        client.release(true)
        return
      }
      this.client = client
      this.wait = this.opts.backoff?.firstMs ?? 500
      void this.request()
    } catch {
      if (client) client.release(true)
      this.reconnectLater()
    }
  }

  private lost(client: pg.PoolClient): void {
    if (this.client !== client) return
    this.client = null
    client.release(true)
    this.reconnectLater()
  }

  private reconnectLater(): void {
    if (this.stopped || this.retry) return
    const wait = this.wait
    this.wait = Math.min(this.wait * 2, this.opts.backoff?.maxMs ?? 30_000)
    this.retry = setTimeout(() => {
      this.retry = null
      void this.listen()
    }, wait)
  }

  /** Stops listening and waits for a sync in hand; the pools are the caller's to end. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.retry) clearTimeout(this.retry)
    if (this.saveTimer) clearTimeout(this.saveTimer)
    this.retry = this.saveTimer = null
    const c = this.client
    this.client = null
    if (c) {
      await c.query(`UNLISTEN ${REVIEW_CHANNEL}`).catch(() => undefined)
      c.release(true)
    }
    await this.running?.catch(() => undefined)
  }
}
