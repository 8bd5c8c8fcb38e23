import type { Account } from '../../../shared/domain'
import type { ReviewQueue, TeamCacheSource, TeamPullProgress, TeamStatus, TeamWindowInfo } from '../../../shared/team'
import { CallsightError, toErrorInfo } from '../../errors'
import {
  checkPgSchema,
  createPool,
  isAnalystLogin,
  pullTeamCache,
  readWorkerState,
  redactUrl,
  resolveScopes,
  sameScopes,
  searchTeamCache,
  ReviewLive,
  syncReview,
  teamCall,
  TeamPasswordVault,
  type TeamDbOptions
} from '../../team'
import { accountIdFor, type AccountRuntime } from '../account-runtime'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'
import { TeamPullSchedule } from '../team-schedule'

export type TeamHandlers = Pick<
  Handlers,
  'team.connect' | 'team.pull' | 'team.cancel' | 'team.status' | 'team.window' | 'team.search' | 'team.call'
>

function dbOptions(team: TeamCacheSource, password: string): TeamDbOptions {
  const opts: TeamDbOptions = {
    url: team.url,
    schema: team.schema,
    password,
    sslMode: team.sslMode,
    applicationName: 'callsight-app',
    maxConnections: 1
  }
  if (team.sslRootCert !== null) opts.sslRootCert = team.sslRootCert
  return opts
}

/**
 * Accounts fed from a team cache (docs/team.md): set one up (the connection is tried with
 * the password first, and the password kept encrypted like tokens), pull into the account's
 * cache with progress events, and show what the worker does. No request reaches the
 * service; signing in to it stays possible for remote search.
 */
export function teamHandlers(state: AppState): TeamHandlers {
  const { platform } = state
  const vaults = new Map<string, TeamPasswordVault>()
  const vault = (id: string): TeamPasswordVault => {
    let v = vaults.get(id)
    if (!v) vaults.set(id, (v = new TeamPasswordVault(platform.secretStore, platform.cipher, id)))
    return v
  }

  const requireTeam = (): { rt: AccountRuntime; team: TeamCacheSource } => {
    const rt = state.runtime
    const team = rt?.account.teamCache
    if (!rt || !team)
      throw new CallsightError('InvalidInput', 'This account does not pull from a team cache.', {
        hint: 'Connect it to the team cache first.'
      })
    return { rt, team }
  }

  const passwordOf = async (accountId: string): Promise<string> => {
    const pw = await vault(accountId).load()
    if (pw === null) {
      throw new CallsightError('NotSignedIn', 'The team cache password is not known on this computer any more.', {
        hint: 'Connect to the team cache again with its password.'
      })
    }
    return pw
  }

  /** The last review sync's outcome per account (its error shows until the next one). */
  const reviewState = new Map<string, ReviewQueue>()
  const reviewOf = (rt: AccountRuntime): ReviewQueue => ({
    waiting: rt.cache.review.share.waiting(),
    refused: rt.cache.review.share.refusedCount(),
    error: reviewState.get(rt.account.id)?.error ?? null
  })

  /** Runs one pull with progress events; `done` resolves with its last progress (never rejects). */
  const startPull = (rt: AccountRuntime, team: TeamCacheSource, password: string): { runId: string; done: Promise<TeamPullProgress> } => {
    let last: TeamPullProgress | null = null
    let ended: (p: TeamPullProgress) => void = () => undefined
    const done = new Promise<TeamPullProgress>((resolve) => (ended = resolve))
    const runId = state.pulls.start({ progress: null }, async (signal, id) => {
      const publish = (p: Omit<TeamPullProgress, 'runId'>): void => {
        const withId: TeamPullProgress = { ...p, runId: id }
        last = withId
        const task = state.pulls.get(id)
        if (task) task.progress = withId
        // The end is announced when the pull's work is over (review sync included, the
        // schedule told): a screen that refreshes on it, or a person who asks for the next
        // pull, then never meets this one still running.
        if (withId.phase === 'pulling') platform.events.emit('team.progress', withId)
      }
      const pool = createPool(dbOptions(team, password))
      try {
        const pulled = await pullTeamCache({
          pool,
          schema: team.schema,
          sourceLabel: redactUrl(team.url),
          cache: rt.cache,
          signal,
          onProgress: publish
        })
        // Review work rides along: pushed (an analyst's login) and pulled after the calls.
        if (pulled.phase === 'done') {
          const review = await syncReview(pool, team.schema, rt.cache)
          reviewState.set(rt.account.id, review)
          platform.events.emit('review.queue', review)
        }
      } catch (e) {
        publish({ phase: 'failed', calls: 0, members: 0, batches: 0, totalCalls: 0, cursor: 0, callsPerSecond: 0, error: toErrorInfo(e) })
      } finally {
        await pool.end().catch(() => undefined)
        const final: TeamPullProgress = last ?? {
          runId: id,
          phase: 'cancelled',
          calls: 0,
          members: 0,
          batches: 0,
          totalCalls: 0,
          cursor: 0,
          callsPerSecond: 0
        }
        schedule.pullEnded(final)
        if (final.phase !== 'pulling') platform.events.emit('team.progress', final)
        ended(final)
      }
    })
    return { runId, done }
  }

  /** `work` over a pool of this account's team login, ended after it (one request's connection). */
  const withTeamPool = async <T>(
    rt: AccountRuntime,
    team: TeamCacheSource,
    work: (pool: ReturnType<typeof createPool>) => Promise<T>
  ): Promise<T> => {
    const pool = createPool(dbOptions(team, await passwordOf(rt.account.id)))
    try {
      return await work(pool)
    } finally {
      await pool.end().catch(() => undefined)
    }
  }

  /** The window the account's cache holds, its calls and its size on disk. */
  const windowOf = (rt: AccountRuntime): TeamWindowInfo => {
    const w = rt.cache.teamWindow()
    const info = rt.cache.info()
    const scopes = rt.cache.teamScopes()
    return {
      days: w.days,
      ...(scopes === null ? {} : { scopes: [...new Set(scopes.map((s) => s.name))] }),
      start: w.heldFrom,
      calls: info.calls,
      bytes: info.sizeBytes
    }
  }

  const failedPull = (e: unknown): TeamPullProgress => ({
    runId: '',
    phase: 'failed',
    calls: 0,
    members: 0,
    batches: 0,
    totalCalls: 0,
    cursor: 0,
    callsPerSecond: 0,
    error: toErrorInfo(e)
  })

  const schedule = new TeamPullSchedule({
    clock: platform.clock,
    everyMinutes: () => state.settings().team.pullEveryMinutes,
    teamAccount: () => (state.runtime?.account.teamCache ? state.runtime.account.id : null),
    pulledAt: () => state.runtime?.cache.teamSource()?.pulledAt ?? null,
    pull: async () => {
      const rt = state.runtime
      const team = rt?.account.teamCache
      if (!rt || !team || state.pulls.size > 0) return null
      try {
        return await startPull(rt, team, await passwordOf(rt.account.id)).done
      } catch (e) {
        // The password is not known here any more (or the cache would not open): the
        // schedule counts it as a failed pull and waits for the next turn.
        const p = failedPull(e)
        schedule.pullEnded(p)
        return p
      }
    },
    onChange: (s) => platform.events.emit('team.schedule', s)
  })
  schedule.start()
  state.disposers.push(() => schedule.dispose())

  /**
   * The active team account's live review sync (core/team/review-live.ts): one listening
   * connection and one for push and pull, opened once the account is active and its
   * password known, closed when another account becomes active or the app ends.
   */
  let live: { accountId: string; live: ReviewLive; pools: Array<{ end(): Promise<void> }> } | null = null
  let starting: Promise<void> | null = null
  const stopLive = async (): Promise<void> => {
    const l = live
    live = null
    if (!l) return
    await l.live.stop()
    for (const p of l.pools) await p.end().catch(() => undefined)
  }
  const startLive = async (): Promise<void> => {
    const rt = state.runtime
    const team = rt?.account.teamCache
    if (live && (!rt || !team || live.accountId !== rt.account.id)) await stopLive()
    if (!rt || !team || live) return
    const password = await vault(rt.account.id).load()
    if (password === null) return
    const id = rt.account.id
    const pool = createPool(dbOptions(team, password))
    const listenPool = createPool(dbOptions(team, password))
    const l = new ReviewLive({
      pool,
      listenPool,
      schema: team.schema,
      cache: () => (state.runtime?.account.id === id ? state.runtime.cache : null),
      onSynced: (queue) => {
        reviewState.set(id, queue)
        platform.events.emit('review.queue', queue)
      }
    })
    live = { accountId: id, live: l, pools: [pool, listenPool] }
    l.start()
  }
  // One start at a time. The run is cleared in a `.finally` (always a later microtask), never
  // inside it: a start with nothing to await (live already running) ends before an assignment
  // around it would, and would leave a settled run in place for good — after which no account
  // switch or new password ever started the live sync again.
  const ensureLive = (): Promise<void> => {
    if (starting) return starting
    const run: Promise<void> = startLive().finally(() => {
      if (starting === run) starting = null
    })
    starting = run
    return run
  }
  state.reviewSaved = () => {
    void ensureLive()
      .then(() => live?.live.saved())
      .catch(() => undefined)
  }
  state.disposers.push(stopLive)

  return {
    'team.connect': async (req) => {
      // Try it before saving anything: a wrong password or address loses nothing.
      const pool = createPool(dbOptions(req.team, req.password))
      let analyst = false
      try {
        await checkPgSchema(pool, req.team.schema, 'reader')
        analyst = await isAnalystLogin(pool, req.team.schema)
      } finally {
        await pool.end().catch(() => undefined)
      }
      const s = state.settings()
      const id = accountIdFor(req.baseUrl, req.username)
      const existing = s.accounts.find((a) => a.id === id)
      const account: Account = {
        id,
        label: existing?.label || `${req.username} @ ${new URL(req.baseUrl).host} (team cache)`,
        baseUrl: req.baseUrl,
        username: req.username,
        zone: req.zone ?? existing?.zone ?? platform.systemZone,
        rateLimit: existing?.rateLimit ?? { requests: 60, perSeconds: 60 },
        demo: false,
        teamCache: req.team
      }
      await vault(id).save(req.password)
      state.saveSettings({ ...s, accounts: [...s.accounts.filter((a) => a.id !== id), account], activeAccountId: id })
      // The same account signed in before keeps its runtime; it learns its new source.
      const rt = state.activate(account)
      rt.update(account)
      // An analyst's own login shares review work: saves queue from now on (and what was saved before, once).
      if (analyst) rt.cache.review.share.enable(platform.clock.now())
      state.emitSession()
      schedule.changed()
      // A new password (or login) for the same account: the live sync logs in again.
      await stopLive()
      await ensureLive().catch(() => undefined)
      return state.sessionState()
    },

    'team.pull': async () => {
      const { rt, team } = requireTeam()
      if (state.pulls.size > 0) throw new CallsightError('InvalidInput', 'A pull is already running.')
      const password = await passwordOf(rt.account.id)
      return { runId: startPull(rt, team, password).runId }
    },

    'team.window': async ({ days, scopes }) => {
      const { rt, team } = requireTeam()
      if (state.pulls.size > 0) throw new CallsightError('InvalidInput', 'A pull is already running.')
      const password = await passwordOf(rt.account.id)
      // Scope names are checked against the team cache first: an unknown one is refused with
      // the known ones, nothing changed. A changed choice empties what was pulled (the pull
      // then takes everything of the chosen scopes anew).
      if (scopes !== undefined) {
        const chosen = scopes === null ? null : await withTeamPool(rt, team, (pool) => resolveScopes(pool, team.schema, scopes))
        if (!sameScopes(rt.cache.teamScopes(), chosen)) rt.cache.chooseTeamScopes(chosen)
      }
      // Recorded first: the pull (and every later one) holds it; the drop or backfill is the pull's.
      rt.cache.setTeamWindow({ ...rt.cache.teamWindow(), days }, null)
      return { runId: startPull(rt, team, password).runId }
    },

    'team.cancel': async ({ runId }) => {
      state.pulls.cancel(runId)
      return { ok: true as const }
    },

    // A connection per request, ended after it: a search of the team cache is occasional,
    // and an idle login held open would count against the server's connections.
    'team.search': async ({ query, offset, limit, count }) => {
      const { rt, team } = requireTeam()
      return withTeamPool(rt, team, (pool) => searchTeamCache({ pool, schema: team.schema }, query, { offset, limit, count }))
    },

    'team.call': async ({ callId }) => {
      const { rt, team } = requireTeam()
      return withTeamPool(rt, team, (pool) => teamCall({ pool, schema: team.schema }, callId))
    },

    'team.status': async (): Promise<TeamStatus> => {
      void ensureLive().catch(() => undefined)
      const rt = state.runtime
      const team = rt?.account.teamCache ?? null
      const active = state.pulls.entries()[0]?.[1].progress ?? null
      const scheduled = schedule.state()
      if (!rt || !team) return { source: null, cursor: null, pulledAt: null, workers: [], error: null, active, schedule: scheduled }
      const local = rt.cache.teamSource()
      const base = {
        source: team,
        cursor: local?.cursor ?? null,
        pulledAt: local?.pulledAt ?? null,
        active,
        schedule: scheduled,
        ...(rt.cache.review.share.enabled ? { review: reviewOf(rt) } : {}),
        window: windowOf(rt)
      }
      try {
        return await withTeamPool(rt, team, async (pool) => {
          const workers = (await readWorkerState(pool, team.schema)).map((w) => ({
            name: w.name,
            worker: w.worker,
            running: w.running,
            status: w.status,
            lastSuccessAt: w.last_success_at,
            lastOutcome: w.last_outcome,
            lastErrorMessage: w.last_error_message,
            nextRunAt: w.next_run_at,
            updatedAt: w.updated_at
          }))
          return { ...base, workers, error: null }
        })
      } catch (e) {
        // The local cache works without the team cache; say why the state is missing.
        return { ...base, workers: [], error: toErrorInfo(e) }
      }
    }
  }
}
