import { rmSync } from 'node:fs'
import {
  DEFAULT_RATE_LIMIT,
  type Account,
  type AccountEntry,
  type SessionState,
  type Settings,
  type SettingsPatch
} from '../../../shared/domain'
import { CallsightError } from '../../errors'
import { TokenVault } from '../../session'
import { TeamPasswordVault } from '../../team'
import { accountDbPath, accountIdFor } from '../account-runtime'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'

export type AccountHandlers = Pick<
  Handlers,
  | 'session.get'
  | 'session.signIn'
  | 'session.startDemo'
  | 'session.signOut'
  | 'settings.get'
  | 'settings.update'
  | 'accounts.remove'
  | 'accounts.list'
  | 'accounts.switch'
>

/** Signing in and out, the accounts set up on this computer, and the settings. */
export function accountHandlers(state: AppState): AccountHandlers {
  const { platform } = state

  async function signIn(account: Account, username: string, password: string): Promise<SessionState> {
    // A failed sign-in must not disturb the account that is active now. A successful one
    // adds the account beside the others, which stay signed in (AppState keeps them).
    const candidate = state.runtimeFor(account)
    await state.connectivity.track(candidate.session.login(username, password))
    await state.leaveFor(account.id)
    state.install(candidate)
    const s = state.settings()
    state.saveSettings({ ...s, accounts: [...s.accounts.filter((a) => a.id !== account.id), account], activeAccountId: account.id })
    state.emitSession()
    return state.sessionState()
  }

  function accountById(id: string): Account {
    const account = state.settings().accounts.find((a) => a.id === id)
    if (!account) throw new CallsightError('NotFound', 'That account is not set up on this computer.')
    return account
  }

  /** Removes an account, its tokens and its cache file, whether it is the active one or not. */
  async function forgetAccount(id: string): Promise<Settings> {
    accountById(id)
    if (state.runtime?.account.id === id) await Promise.all([state.syncs.cancelAll(), state.pulls.cancelAll()])
    await state.keptRuntime(id)?.session.signOut()
    state.dropRuntime(id)
    // An account not used this run has its tokens in the vault only.
    new TokenVault(platform.secretStore, platform.cipher, id).clear()
    new TeamPasswordVault(platform.secretStore, platform.cipher, id).clear()
    const db = accountDbPath(platform.paths.userData, id)
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true })
    const s = state.settings()
    const next = state.saveSettings({
      ...s,
      accounts: s.accounts.filter((a) => a.id !== id),
      activeAccountId: s.activeAccountId === id ? null : s.activeAccountId
    })
    state.emitSession()
    return next
  }

  async function startDemo(): Promise<SessionState> {
    if (!platform.demo) throw new CallsightError('Internal', 'The demo is not available in this build.')
    const demo = await platform.demo.start()
    const account: Account = {
      id: 'demo',
      label: 'Demo tenant',
      baseUrl: demo.baseUrl,
      username: demo.username,
      zone: demo.zone,
      rateLimit: demo.rateLimit,
      demo: true
    }
    const signedIn = await signIn(account, demo.username, demo.password)
    // The demo tenant's catalog, with descriptions: the real service has no catalog endpoint.
    state.requireRuntime().cache.upsertCallTypes(demo.callTypes)
    return signedIn
  }

  function applyPatch(patch: SettingsPatch): Settings {
    const s = state.settings()
    const next: Settings = {
      ...s,
      displayZone: patch.displayZone ?? s.displayZone,
      language: patch.language ?? s.language,
      theme: patch.theme ?? s.theme,
      sync: { ...s.sync, ...patch.sync },
      export: { ...s.export, ...patch.export },
      team: { ...s.team, ...patch.team },
      review: { ...s.review, ...patch.review }
    }
    if (patch.account) next.accounts = editAccount(s.accounts, patch.account)
    if (patch.resultColumns) next.resultColumns = { ...s.resultColumns, [patch.resultColumns.accountId]: patch.resultColumns.columns }
    if (patch.resultSort) {
      const { [patch.resultSort.accountId]: _old, ...others } = s.resultSort
      next.resultSort = patch.resultSort.sort ? { ...others, [patch.resultSort.accountId]: patch.resultSort.sort } : others
    }
    if (patch.extraField) {
      const { accountId, key, setting } = patch.extraField
      next.extraFields = { ...s.extraFields, [accountId]: { ...s.extraFields[accountId], [key]: setting } }
    }
    if (patch.theme) platform.setThemeSource(patch.theme)
    return state.saveSettings(next)
  }

  /** The accounts with one edited; the active runtime follows the edit. */
  function editAccount(accounts: Account[], edit: NonNullable<SettingsPatch['account']>): Account[] {
    const { id, ...changes } = edit
    const current = accounts.find((a) => a.id === id)
    if (!current) throw new CallsightError('NotFound', 'That account is not set up on this computer.')
    const updated: Account = {
      ...current,
      label: changes.label ?? current.label,
      zone: changes.zone ?? current.zone,
      rateLimit: changes.rateLimit ?? current.rateLimit
    }
    const previous = state.runtime
    const kept = state.keptRuntime(id)
    // An inactive account's runtime takes a new label or limit now; a new zone is picked up
    // (the client rebuilt, its tokens kept) when the account is next switched to.
    if (kept && kept !== previous && updated.zone === current.zone) kept.update(updated)
    if (previous?.account.id === id) {
      if (updated.zone !== current.zone) {
        // The zone is part of how dates are sent and read: rebuild the client around it,
        // with the tokens the old one holds (in memory only without a secure key store).
        const rt = state.activate(updated)
        state.rebuilding = rt
          .adoptTokensFrom(previous)
          .then(() => rt.session.restore())
          .then(state.emitSession, () => state.emitSession())
      } else previous.update(updated)
    }
    return accounts.map((a) => (a.id === id ? updated : a))
  }

  return {
    'session.get': async () => state.sessionState(),

    'session.signIn': async (req) => {
      const id = accountIdFor(req.baseUrl, req.username)
      const existing = state.settings().accounts.find((a) => a.id === id)
      const account: Account = {
        id,
        label: existing?.label || `${req.username} @ ${new URL(req.baseUrl).host}`,
        baseUrl: req.baseUrl,
        username: req.username,
        zone: req.zone ?? existing?.zone ?? platform.systemZone,
        rateLimit: req.rateLimit ?? existing?.rateLimit ?? DEFAULT_RATE_LIMIT,
        demo: false,
        // Signing in for remote search keeps a team cache account's source (docs/team.md).
        ...(existing?.teamCache ? { teamCache: existing.teamCache } : {})
      }
      return signIn(account, req.username, req.password)
    },

    'session.startDemo': async () => startDemo(),

    'session.signOut': async ({ forget }) => {
      await state.syncs.cancelAll()
      const rt = state.runtime
      if (rt) {
        await rt.session.signOut()
        if (forget) await forgetAccount(rt.account.id)
      }
      state.emitSession()
      return state.sessionState()
    },

    'settings.get': async () => state.settings(),
    'settings.update': async (patch) => {
      const next = applyPatch(patch)
      await state.rebuilding
      return next
    },
    'accounts.remove': async ({ id }) => forgetAccount(id),

    'accounts.list': async () => {
      const accounts: AccountEntry[] = []
      for (const account of state.settings().accounts) {
        // The demo's tokens die with the run that started it; other accounts' saved tokens
        // are picked up here, so the list says truly which accounts need a password.
        const rt = account.demo ? state.keptRuntime(account.id) : await state.runtimeOf(account)
        accounts.push({ account, active: state.runtime?.account.id === account.id, status: rt?.session.status ?? 'signedOut' })
      }
      return { accounts }
    },

    'accounts.switch': async ({ id }) => {
      const account = accountById(id)
      if (state.runtime?.account.id === id) return state.sessionState()
      // The demo service is started afresh each run: its account signs in to it again.
      if (account.demo && state.keptRuntime(id)?.session.status !== 'signedIn') return startDemo()
      await state.leaveFor(id)
      state.install(await state.runtimeOf(account))
      const s = state.settings()
      state.saveSettings({ ...s, activeAccountId: id })
      state.emitSession()
      return state.sessionState()
    }
  }
}
