import { afterEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../../../src/service'
import { MemoryStore } from '../../../src/core/platform/node'
import { NOT_SAVED_NOTICE } from '../../../src/core/session/session'
import { DEMO, params, rig, service, sleep } from './harness'

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
    // One-second access tokens, and no reuse leeway: a spent refresh token sent again revokes the family.
    svc = await service({ tokenTtlSeconds: 1, refreshLeewaySeconds: 0 })
    const store = new FlakyStore()
    const r = rig(svc, { store })
    await r.session.login(DEMO.username, DEMO.password)
    const onDisk = JSON.stringify(store.get('tokens:acct'))
    expect(r.session.notice).toBeNull()

    store.failWrites = true
    await sleep(1_100)
    const first = await r.session.getCalls(params({ take: 2 }))
    expect(first.records).toHaveLength(2)
    expect(r.session.refreshes).toBe(1)
    expect(r.session.status).toBe('signedIn')
    expect(r.session.notice).toBe(NOT_SAVED_NOTICE)
    // The copy on disk held the spent refresh token; it is gone rather than left to be sent.
    expect(store.get('tokens:acct')).toBeUndefined()
    expect(onDisk).not.toBe('undefined')

    // The next refresh sends the new token, from memory, and the service accepts it.
    await sleep(1_100)
    const second = await r.session.getCalls(params({ take: 2 }))
    expect(second.records).toHaveLength(2)
    expect(r.session.refreshes).toBe(2)
    expect(svc.admin.stats().byStatus['400'] ?? 0).toBe(0)

    // Once a save works again, the notice goes and the pair is on disk.
    store.failWrites = false
    await sleep(1_100)
    await r.session.getCalls(params({ take: 1 }))
    expect(r.session.notice).toBeNull()
    expect(store.get('tokens:acct')).toBeDefined()
    expect((await r.vault.load())?.refreshToken).toBeDefined()
  })
})
