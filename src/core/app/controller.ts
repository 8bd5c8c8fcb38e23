import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import {
  DEFAULT_RATE_LIMIT,
  type Account,
  type CacheInfo,
  type ExportRequest,
  type SessionState,
  type Settings,
  type SettingsPatch,
  type SyncProgress
} from '../../shared/domain'
import { CallsightError, toErrorInfo } from '../errors'
import { remoteSearch } from '../client'
import { exportCalls } from '../export'
import { RateLimiterRegistry } from '../ratelimit'
import { SyncEngine, WaitFeed } from '../sync'
import { AccountRuntime, accountIdFor } from './account-runtime'
import { Connectivity } from './connectivity'
import type { AppController, Handlers, PlatformServices } from './platform'
import { TaskRegistry } from './tasks'
import { createTeamHandlers } from './team-account'

const EMPTY_CACHE: CacheInfo = { path: null, sizeBytes: 0, calls: 0, lastSyncAt: null }

/**
 * The application: every channel of the contract, implemented over core. The Electron shell
 * and the browser mode (serve) bind this same object through the same router, so what the
 * end-to-end tests exercise is what the app runs.
 */
export function createAppController(platform: PlatformServices): AppController {
  const { events, settingsStore, clock, logger } = platform
  // One sync runs at a time, so one feed carries the limiter's waits to its progress.
  const waits = new WaitFeed()
  const limiters = new RateLimiterRegistry({ clock, onWait: waits.emit })
  const syncs = new TaskRegistry<{ progress: SyncProgress | null }>()
  const exports = new TaskRegistry<{ file: string }>()
  const connectivity = new Connectivity((online) =>
    events.emit('connectivity.changed', { online, checkedAt: clock.now() })
  )
  let runtime: AccountRuntime | null = null

  const settings = (): Settings => settingsStore.get()
  const displayZone = (): string => {
    const z = settings().displayZone
    return z === 'system' ? platform.systemZone : z
  }

  const sessionState = (): SessionState => {
    const persisted = platform.tokenPersistence.persist
    return {
      status: runtime?.session.status ?? 'signedOut',
      account: runtime?.account ?? null,
      tokensPersisted: persisted && !(runtime?.account.demo ?? false),
      notice: runtime?.session.notice ?? (runtime && !persisted ? platform.tokenPersistence.notice : null)
    }
  }
  const emitSession = (): void => events.emit('session.changed', sessionState())

  /** Makes `rt` the active runtime, releasing the previous one's cache and listeners. */
  function install(rt: AccountRuntime): AccountRuntime {
    runtime?.closeCache()
    runtime?.session.removeAllListeners('state')
    rt.session.on('state', emitSession)
    runtime = rt
    return rt
  }

  function activate(account: Account): AccountRuntime {
    if (runtime && runtime.account.id === account.id && sameConnection(runtime.account, account)) return runtime
    return install(new AccountRuntime(account, platform, limiters))
  }

  const requireRuntime = (): AccountRuntime => {
    if (!runtime) throw new CallsightError('NotSignedIn', 'Sign in or start the demo first.')
    return runtime
  }
  const requireSignedIn = (): AccountRuntime => {
    const rt = requireRuntime()
    if (rt.session.status !== 'signedIn' && rt.session.status !== 'refreshing') {
      throw new CallsightError('NotSignedIn', 'Sign in to the service to do this; local search works without it.')
    }
    return rt
  }

  function saveAccount(account: Account): Settings {
    const s = settings()
    const accounts = s.accounts.filter((a) => a.id !== account.id)
    return settingsStore.set({ ...s, accounts: [...accounts, account], activeAccountId: account.id })
  }

  const team = createTeamHandlers({
    platform,
    settings,
    saveAccount,
    activate: (account) => {
      const rt = activate(account)
      rt.update(account)
      return rt
    },
    runtime: () => runtime,
    sessionState,
    emitSession
  })

  async function signIn(account: Account, username: string, password: string): Promise<SessionState> {
    // A failed sign-in must not disturb the account that is active now.
    const candidate = new AccountRuntime(account, platform, limiters)
    await connectivity.track(candidate.session.login(username, password))
    install(candidate)
    saveAccount(account)
    emitSession()
    return sessionState()
  }

  function forgetAccount(id: string): Settings {
    const s = settings()
    const account = s.accounts.find((a) => a.id === id)
    if (!account) throw new CallsightError('NotFound', 'That account is not set up on this computer.')
    if (runtime?.account.id === id) {
      void runtime.session.signOut()
      runtime.closeCache()
      runtime = null
    }
    team.forget(id)
    const db = new AccountRuntime(account, platform, limiters).dbPath
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true })
    const next = settingsStore.set({
      ...s,
      accounts: s.accounts.filter((a) => a.id !== id),
      activeAccountId: s.activeAccountId === id ? null : s.activeAccountId
    })
    emitSession()
    return next
  }

  /** Settles when a runtime rebuilt by a settings change has its session back. */
  let rebuilding: Promise<void> = Promise.resolve()

  function applyPatch(patch: SettingsPatch): Settings {
    const s = settings()
    const next: Settings = {
      ...s,
      displayZone: patch.displayZone ?? s.displayZone,
      language: patch.language ?? s.language,
      theme: patch.theme ?? s.theme,
      sync: { ...s.sync, ...patch.sync },
      export: { ...s.export, ...patch.export }
    }
    if (patch.account) {
      const { id, ...changes } = patch.account
      const current = s.accounts.find((a) => a.id === id)
      if (!current) throw new CallsightError('NotFound', 'That account is not set up on this computer.')
      const updated: Account = {
        ...current,
        label: changes.label ?? current.label,
        zone: changes.zone ?? current.zone,
        rateLimit: changes.rateLimit ?? current.rateLimit
      }
      next.accounts = s.accounts.map((a) => (a.id === id ? updated : a))
      if (runtime?.account.id === id) {
        if (updated.zone !== current.zone) {
          // The zone is part of how dates are sent and read: rebuild the client around it,
          // with the tokens the old one holds (in memory only without a secure key store).
          const previous = runtime
          const rt = activate(updated)
          rebuilding = rt
            .adoptTokensFrom(previous)
            .then(() => rt.session.restore())
            .then(emitSession, () => emitSession())
        } else runtime.update(updated)
      }
    }
    if (patch.theme) platform.setThemeSource(patch.theme)
    return settingsStore.set(next)
  }

  function startExport(req: ExportRequest, file: string): string {
    const rt = requireRuntime()
    const zone = req.zone ?? displayZone()
    return exports.start({ file }, async (signal, exportId) => {
      const emit = (p: Omit<Parameters<typeof events.emit<'export.progress'>>[1], 'exportId'>): void =>
        events.emit('export.progress', { exportId, ...p })
      const reader = rt.openReader()
      try {
        const source = reader.search.iterate(req.selection)
        emit({ phase: 'writing', written: 0, total: source.total, file: null })
        const result = await exportCalls({
          source,
          file,
          format: req.format,
          columns: req.columns,
          analysisLayout: req.analysisLayout,
          zone,
          meta: {
            query: req.selection.kind === 'query' ? req.selection.query : { ids: req.selection.ids.length },
            scope: rt.account.label,
            appVersion: platform.appVersion,
            exportedAt: clock.now()
          },
          signal,
          onProgress: (p) => emit({ phase: 'writing', written: p.written, total: p.total, file: null })
        })
        const download = platform.dialogs.offerDownload?.(result.file)
        emit({ phase: 'done', written: result.count, total: result.count, file: result.file, ...(download ? { download } : {}) })
      } catch (e) {
        const error = toErrorInfo(e)
        if (error.code === 'Internal') logger.log('error', 'export failed', { error: String(e) })
        emit({ phase: error.code === 'Cancelled' ? 'cancelled' : 'failed', written: 0, total: 0, file: null, error })
      } finally {
        reader.close()
      }
    })
  }

  const handlers: Handlers = {
    'app.info': async () => ({
      version: platform.appVersion,
      electron: platform.electronVersion,
      platform: platform.platform,
      locale: platform.locale,
      systemZone: platform.systemZone,
      darkMode: platform.darkMode()
    }),

    'session.get': async () => sessionState(),

    'session.signIn': async (req) => {
      const s = settings()
      const id = accountIdFor(req.baseUrl, req.username)
      const existing = s.accounts.find((a) => a.id === id)
      const account: Account = {
        id,
        label: existing?.label || `${req.username} @ ${new URL(req.baseUrl).host}`,
        baseUrl: req.baseUrl,
        username: req.username,
        zone: req.zone ?? existing?.zone ?? platform.systemZone,
        rateLimit: req.rateLimit ?? existing?.rateLimit ?? DEFAULT_RATE_LIMIT,
        demo: false,
        // Signing in for remote search keeps a team cache account's source.
        ...(existing?.teamCache ? { teamCache: existing.teamCache } : {})
      }
      return signIn(account, req.username, req.password)
    },

    'session.startDemo': async () => {
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
      const state = await signIn(account, demo.username, demo.password)
      requireRuntime().cache.upsertCallTypes(demo.callTypes)
      return state
    },

    'session.signOut': async ({ forget }) => {
      await syncs.cancelAll()
      if (runtime) {
        await runtime.session.signOut()
        if (forget) forgetAccount(runtime.account.id)
      }
      emitSession()
      return sessionState()
    },

    'settings.get': async () => settings(),
    'settings.update': async (patch) => {
      const next = applyPatch(patch)
      await rebuilding
      return next
    },
    'accounts.remove': async ({ id }) => forgetAccount(id),

    'catalog.callTypes': async () => (runtime ? runtime.cache.callTypes() : []),

    'sync.start': async ({ scope, mode }) => {
      const rt = requireSignedIn()
      if (syncs.size > 0) throw new CallsightError('InvalidInput', 'A sync is already running. Wait for it or cancel it first.')
      if (scope.callTypes.length > 0) {
        const known = new Set(rt.cache.callTypes().map((c) => c.value))
        rt.cache.upsertCallTypes(scope.callTypes.filter((v) => !known.has(v)).map((value) => ({ value, description: value })))
      }
      const runId = syncs.start({ progress: null }, async (signal, id) => {
        const engine = new SyncEngine({
          source: { getCalls: (params, sig) => connectivity.track(rt.session.getCalls(params, sig)) },
          cache: rt.cache,
          clock,
          logger,
          rateLimit: rt.account.rateLimit,
          lookbackHours: settings().sync.lookbackHours,
          waits
        })
        const publish = (p: SyncProgress): void => {
          const withId = { ...p, runId: id }
          const task = syncs.get(id)
          if (task) task.progress = withId
          events.emit('sync.progress', withId)
        }
        try {
          await engine.run(scope, { mode, signal, onProgress: publish })
        } catch (e) {
          const error = toErrorInfo(e)
          const last = syncs.get(id)?.progress
          publish({
            ...(last ?? emptyProgress(id, scope.from, scope.to)),
            phase: error.code === 'Cancelled' ? 'cancelled' : 'failed',
            error
          })
        }
      })
      return { runId }
    },

    'sync.cancel': async ({ runId }) => {
      syncs.cancel(runId)
      return { ok: true as const }
    },

    'sync.scopes': async () => {
      const active = syncs.entries()[0]?.[1].progress ?? null
      return { scopes: runtime ? runtime.cache.scopeStatuses() : [], active }
    },

    'search.page': async ({ query, offset, limit }) =>
      runtime ? runtime.search.page(query, offset, limit) : { offset, rows: [] },
    'search.count': async ({ query }) => ({ total: runtime ? runtime.search.count(query) : 0 }),
    'search.facets': async ({ query, analysisKey, zone }) =>
      runtime
        ? runtime.search.facets(query, analysisKey, zone ?? displayZone())
        : { total: 0, perType: [], perDay: [], perValue: [] },
    'search.analysisKeys': async () => (runtime ? runtime.search.analysisKeys() : []),
    'calls.get': async ({ callId }) => (runtime ? runtime.search.get(callId) : null),

    'remote.search': async ({ query, skip, take, includeAnalysis }) => {
      const rt = requireSignedIn()
      return connectivity.track(remoteSearch(rt.session, query, skip, take, includeAnalysis))
    },

    'savedSearches.save': async ({ name, query, id }) => {
      const s = settings()
      const entry = { id: id ?? randomUUID(), name, query, createdAt: clock.now() }
      const others = s.savedSearches.filter((x) => x.id !== entry.id)
      return settingsStore.set({ ...s, savedSearches: [...others, entry] }).savedSearches
    },
    'savedSearches.remove': async ({ id }) => {
      const s = settings()
      return settingsStore.set({ ...s, savedSearches: s.savedSearches.filter((x) => x.id !== id) }).savedSearches
    },

    'export.start': async (req) => {
      requireRuntime()
      const stamp = new Date(clock.now()).toISOString().slice(0, 10)
      const file = await platform.dialogs.chooseExportFile(`callsight-${stamp}.${req.format}`, req.format)
      if (!file) return { started: false as const }
      applyPatch({ export: { format: req.format, columns: req.columns, analysisLayout: req.analysisLayout } })
      const exportId = startExport(req, file)
      return { started: true as const, exportId, file }
    },
    'export.cancel': async ({ exportId }) => {
      exports.cancel(exportId)
      return { ok: true as const }
    },

    'cache.info': async () => (runtime ? runtime.cache.info() : EMPTY_CACHE),
    'cache.clear': async () => {
      const rt = requireRuntime()
      await syncs.cancelAll()
      rt.cache.clear()
      return rt.cache.info()
    },

    'shell.openExternal': async ({ url }) => {
      const protocol = new URL(url).protocol
      if (protocol !== 'https:' && protocol !== 'http:') throw new CallsightError('InvalidInput', 'Only web links can be opened.')
      await platform.openExternal(url)
      return { ok: true as const }
    },

    ...team.handlers
  }

  // Start where the user left off: the active account's cache opens for offline work, and
  // saved tokens (when the OS keyring allowed saving them) sign it back in.
  const startup = (async () => {
    const s = settings()
    platform.setThemeSource(s.theme)
    const active = s.accounts.find((a) => a.id === s.activeAccountId)
    if (!active || active.demo) return
    const rt = activate(active)
    try {
      if (await rt.session.restore()) emitSession()
    } catch (e) {
      logger.log('warn', 'could not restore the session', { code: toErrorInfo(e).code })
    }
  })()

  return {
    handlers: withStartup(handlers, startup),
    async dispose() {
      await startup.catch(() => undefined)
      await Promise.all([syncs.cancelAll(), exports.cancelAll(), team.dispose()])
      connectivity.dispose()
      runtime?.closeCache()
      runtime = null
      await platform.demo?.stop()
    }
  }
}

function sameConnection(a: Account, b: Account): boolean {
  return a.baseUrl === b.baseUrl && a.username === b.username && a.zone === b.zone
}

function emptyProgress(runId: string, from: number, to: number): SyncProgress {
  return {
    runId,
    phase: 'planning',
    stored: 0,
    requests: 0,
    windowsDone: 0,
    position: null,
    from,
    to,
    requestsPerMinute: 0,
    recordsPerSecond: 0,
    etaSeconds: null,
    waitSeconds: null,
    warnings: []
  }
}

/** Every handler waits for start-up (restoring the session) before it answers. */
function withStartup(handlers: Handlers, startup: Promise<void>): Handlers {
  const wrapped = {} as Record<string, unknown>
  for (const [name, fn] of Object.entries(handlers) as Array<[string, (req: unknown, ctx: unknown) => Promise<unknown>]>) {
    wrapped[name] = async (req: unknown, ctx: unknown) => {
      await startup.catch(() => undefined)
      return fn(req, ctx)
    }
  }
  return wrapped as Handlers
}
