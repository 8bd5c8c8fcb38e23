import { afterEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../../../src/reference-service'
import { ManualClock } from '../../../src/core/platform/manual-clock'
import { MemoryStore } from '../../../src/core/platform/node'
import { NOT_SAVED_NOTICE } from '../../../src/core/session/session'
import { DEMO, params, rig, service } from './harness'

let svc: RunningService | undefined
afterEach(async () => {
  await svc?.stop()
  svc = undefined
})

/** A store whose writes can be made to fail (a full disk, a locked file), reads still work. */
class FlakyStore extends MemoryStore {
  failWrites = false
  override set(key: string, value: unknown): void {
    if (this.failWrites) throw new Error('ENOSPC: no space left on device')
    super.set(key, value)
  }
}

describe('a refreshed token pair that cannot be saved', () => {
  it('is used from memory with a notice, and the next refresh works (a rotating service would revoke the family otherwise)', async () => {
    // No reuse leeway: a spent refresh token sent again revokes the family. The session's
    // clock is moved to a minute before each token's end, so it refreshes then, every time,
    // while the service (on real time) still accepts the token it has.
    svc = await service({ tokenTtlSeconds: 3600, refreshLeewaySeconds: 0 })
    const clock = new ManualClock(Date.now())
    const store = new FlakyStore()
    const r = rig(svc, { store, clock })
    const nearExpiry = async (): Promise<void> => clock.advance(r.session.expiresAt! - clock.now() - 60_000)
    await r.session.login(DEMO.username, DEMO.password)
    const onDisk = JSON.stringify(store.get('tokens:acct'))
    expect(r.session.notice).toBeNull()

    store.failWrites = true
    await nearExpiry()
    const first = await r.session.getCalls(params({ take: 2 }))
    expect(first.records).toHaveLength(2)
    expect(r.session.refreshes).toBe(1)
    expect(r.session.status).toBe('signedIn')
    expect(r.session.notice).toEqual({ notice: NOT_SAVED_NOTICE, noticeCode: 'notSaved' })
    // The copy on disk held the spent refresh token; it is gone rather than left to be sent.
    expect(store.get('tokens:acct')).toBeUndefined()
    expect(onDisk).not.toBe('undefined')

    // The next refresh sends the new token, from memory, and the service accepts it.
    await nearExpiry()
    const second = await r.session.getCalls(params({ take: 2 }))
    expect(second.records).toHaveLength(2)
    expect(r.session.refreshes).toBe(2)
    expect(svc.admin.stats().byStatus['400'] ?? 0).toBe(0)

    // Once a save works again, the notice goes and the pair is on disk.
    store.failWrites = false
    await nearExpiry()
    await r.session.getCalls(params({ take: 1 }))
    expect(r.session.notice).toBeNull()
    expect(store.get('tokens:acct')).toBeDefined()
    expect((await r.vault.load())?.refreshToken).toBeDefined()
  })
})
