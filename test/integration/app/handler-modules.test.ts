import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CHANNELS } from '../../../src/shared/ipc/names'
import type { Account } from '../../../src/shared/domain'
import { accountDbPath } from '../../../src/core/app/account-runtime'
import { AppState } from '../../../src/core/app/app-state'
import { accountHandlers } from '../../../src/core/app/handlers/account'
import { exportHandlers } from '../../../src/core/app/handlers/export'
import { searchHandlers } from '../../../src/core/app/handlers/search'
import { shellHandlers } from '../../../src/core/app/handlers/shell'
import { syncHandlers } from '../../../src/core/app/handlers/sync'
import { membershipHandlers } from '../../../src/core/app/handlers/memberships'
import { teamHandlers } from '../../../src/core/app/handlers/team'
import { reviewHandlers } from '../../../src/core/app/handlers/review'
import { teamReviewHandlers } from '../../../src/core/app/handlers/team-review'
import { createTestApp, type TestApp } from '../../support/app-fixture'

// The controller's handler modules on their own, over a real platform (files in a temp
// folder); no service is needed for what they check.

let app: TestApp
let state: AppState
beforeEach(() => {
  app = createTestApp()
  state = new AppState(app.platform)
})
afterEach(async () => {
  state.closeAll()
  await app.close()
})

const account = (username: string, requests: number): Account => ({
  id: `id-${username}`,
  label: username,
  baseUrl: 'https://calls.example.com',
  username,
  zone: 'Europe/Istanbul',
  rateLimit: { requests, perSeconds: 60 },
  demo: false
})

describe('handler modules', () => {
  it('give every channel of the contract exactly one handler', () => {
    const modules = [
      shellHandlers,
      accountHandlers,
      syncHandlers,
      membershipHandlers,
      searchHandlers,
      exportHandlers,
      teamHandlers,
      reviewHandlers,
      teamReviewHandlers
    ].map((m) => Object.keys(m(state)))
    const all = modules.flat()
    expect(new Set(all).size).toBe(all.length)
    expect([...all].sort()).toEqual([...CHANNELS].sort())
  })

  it('forget an account by its file alone: the active account on the same tenant keeps its rate limit', async () => {
    const active = account('ayse', 120)
    const other = account('mehmet', 30)
    const s = state.settings()
    state.saveSettings({ ...s, accounts: [active, other], activeAccountId: active.id })
    const rt = state.activate(active)
    const db = accountDbPath(app.userData, other.id)
    mkdirSync(`${app.userData}/accounts`, { recursive: true })
    writeFileSync(db, '')
    writeFileSync(`${db}-wal`, '')

    const next = await accountHandlers(state)['accounts.remove']({ id: other.id }, { senderId: 1 })
    expect(next.accounts.map((a) => a.id)).toEqual([active.id])
    expect(existsSync(db)).toBe(false)
    expect(existsSync(`${db}-wal`)).toBe(false)
    // The tenant's limiter is shared; building a runtime for the forgotten account set it to 30.
    expect(rt.limiter.limit).toEqual({ requests: 120, perSeconds: 60 })
    expect(state.runtime).toBe(rt)
  })

  it('refuse to forget an account that is not set up', async () => {
    await expect(accountHandlers(state)['accounts.remove']({ id: 'nobody' }, { senderId: 1 })).rejects.toMatchObject({ code: 'NotFound' })
  })
})
