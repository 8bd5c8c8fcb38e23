/** Real reference service over HTTP on 127.0.0.1, a real SQLite file, the real session. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openCache, type CallCache } from '../../../src/core/cache'
import { createServiceClient } from '../../../src/core/client'
import { createAesGcmCipher } from '../../../src/core/crypto/aes-cipher'
import type { FetchLike } from '../../../src/core/platform'
import { MemoryStore, silentLogger, systemClock } from '../../../src/core/platform/node'
import { TenantRateLimiter } from '../../../src/core/ratelimit'
import { Session, TokenVault } from '../../../src/core/session'
import { SyncEngine, WaitFeed } from '../../../src/core/sync'
import type { RateLimit } from '../../../src/shared/domain'
import { startService, type DumpRecord, type RunningService, type ServiceOptions } from '../../../src/reference-service'
import { connectionOf } from '../../../src/core/cache/call-cache'

export const ZONE = 'Europe/Istanbul'
export const FROM = '2026-01-05T06:00:00Z'
export const TO = '2026-01-05T18:00:00Z'
export const FROM_MS = Date.parse(FROM)
/** The service's `to` is inclusive at whole seconds; the sync's is exclusive. */
export const TO_MS = Date.parse(TO) + 1000

export interface SyncEnv {
  service: RunningService
  session: Session
  cache: CallCache
  engine: SyncEngine
  limiter: TenantRateLimiter
  dir: string
  file: string
  reopen(opts?: { lookbackHours?: number }): SyncEngine
  close(): Promise<void>
}

export async function startEnv(
  opts: ServiceOptions & { clientLimit?: RateLimit; lookbackHours?: number; wrapFetch?: (f: FetchLike) => FetchLike } = {}
): Promise<SyncEnv> {
  const { clientLimit, lookbackHours, wrapFetch, ...serviceOpts } = opts
  const plain: FetchLike = (i, init) => fetch(i, init)
  const service = await startService({
    port: 0,
    calls: 3000,
    seed: 11,
    from: FROM,
    to: TO,
    tz: ZONE,
    rateLimit: { requests: 600, perSeconds: 1 },
    quiet: true,
    ...serviceOpts
  })
  const rateLimit = clientLimit ?? serviceOpts.rateLimit ?? { requests: 600, perSeconds: 1 }
  const waits = new WaitFeed()
  const limiter = new TenantRateLimiter(rateLimit, { onWait: waits.emit, marginMs: 50 })
  const client = createServiceClient({
    baseUrl: service.url,
    zone: ZONE,
    fetch: wrapFetch ? wrapFetch(plain) : plain,
    limiter,
    maxRetries: 8,
    retry: { baseDelayMs: 20, maxDelayMs: 200 }
  })
  const vault = new TokenVault(new MemoryStore(), createAesGcmCipher(Buffer.alloc(32, 7)), 'test')
  const session = new Session({ client, vault })
  await session.login('demo', 'demo')
  const dir = mkdtempSync(join(tmpdir(), 'callsight-sync-'))
  const file = join(dir, 'cache.db')
  let cache = openCache(file)
  const make = (lb = lookbackHours): SyncEngine =>
    new SyncEngine({ source: session, cache: cache.sync, clock: systemClock, logger: silentLogger, rateLimit, lookbackHours: lb, waits })
  const env: SyncEnv = {
    service,
    session,
    cache,
    engine: make(),
    limiter,
    dir,
    file,
    reopen(o = {}) {
      cache.close()
      cache = openCache(file)
      env.cache = cache
      env.engine = make(o.lookbackHours ?? lookbackHours)
      return env.engine
    },
    async close() {
      cache.close()
      await service.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return env
}

/** The dump's calls that a scope with these filters must hold. */
export function expectedIds(
  dump: DumpRecord[],
  f: { from: number; to: number; results?: 'answered' | 'all'; direction?: number | null }
): Set<string> {
  return new Set(
    dump
      .filter((d) => {
        const at = Date.parse(d.callDate)
        if (at < f.from || at >= f.to) return false
        if ((f.results ?? 'answered') === 'answered' && d.result !== 1) return false
        if (f.direction != null && d.direction !== f.direction) return false
        return true
      })
      .map((d) => d.callId)
  )
}

export function storedIds(cache: CallCache, scopeKey: string): string[] {
  return connectionOf(cache)
    .prepare(
      'SELECT c.call_id FROM calls c JOIN scope_members m ON m.call = c.id JOIN sync_scopes s ON s.id = m.scope WHERE s.scope_key = ?'
    )
    .pluck()
    .all(scopeKey) as string[]
}

export function allCallIds(cache: CallCache): string[] {
  return connectionOf(cache).prepare('SELECT call_id FROM calls').pluck().all() as string[]
}
