import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { CallsightError, toErrorInfo } from '../../core/errors'
import type { Logger } from '../../core/platform'
import { systemClock } from '../../core/platform/node'
import { PgSyncStore, TeamWorker, WorkerConfig } from '../../core/team'
import { MAX_PASS_CONCURRENCY, workerRateLimit } from '../../core/team/worker-config'
import { membershipPlan } from '../../core/team/worker-memberships'
import { recordStartFailure } from '../../core/team/worker-start'
import { WorkerMetrics } from '../../core/team/worker-metrics'
import { check, parseFlags, parseIntFlag, required } from '../args'
import { connect } from '../connect'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import type { CliParts } from '../parts'
import { jsonLine } from '../terminal-text'
import { readPassword } from '../password'

/** One JSON object per line: what log collectors (journald, Loki, …) read best. */
export function jsonLinesLogger(write: (line: string) => void, now: () => number = Date.now): Logger {
  return {
    log: (level, message, fields) => {
      if (level === 'debug') return
      write(`${jsonLine({ time: new Date(now()).toISOString(), level, msg: message, ...fields })}\n`)
    }
  }
}

export function readWorkerConfig(file: string): WorkerConfig {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    throw new CallsightError('InvalidInput', `--config: ${file} could not be read as JSON.`, { cause: e })
  }
  return check(WorkerConfig, raw, `--config ${file}`)
}

export async function workerCommand(argv: string[], io: Io, signal: AbortSignal, parts: CliParts = {}): Promise<number> {
  const { values } = parseFlags(argv, {
    config: { type: 'string' },
    once: { type: 'boolean', default: false },
    metrics: { type: 'string' },
    'pass-concurrency': { type: 'string' }
  })
  const cfg = readWorkerConfig(required(values.config, '--config'))
  const passConcurrency = parseIntFlag(values['pass-concurrency'], '--pass-concurrency', 1, MAX_PASS_CONCURRENCY) ?? cfg.passConcurrency
  const logger = jsonLinesLogger(io.out)
  // systemd stops a service with SIGTERM: the same clean stop as Ctrl-C.
  const stop = new AbortController()
  const onTerm = (): void => {
    logger.log('info', 'stop requested (SIGTERM)')
    stop.abort()
  }
  const onAbort = (): void => stop.abort()
  process.on('SIGTERM', onTerm)
  signal.addEventListener('abort', onAbort, { once: true })
  let store: PgSyncStore | null = null
  try {
    store = await PgSyncStore.open({
      url: cfg.db,
      schema: cfg.schema,
      sslMode: cfg.sslMode,
      sslRootCert: cfg.sslRootCert,
      applicationName: 'callsight-worker',
      // A connection for each pass running at once, beside the heartbeats' and the owner's.
      maxConnections: 3 + passConcurrency
    })
    const metrics = new WorkerMetrics(values.metrics, Date.now)
    const workerName = `${hostname()}:${process.pid}`
    const opened = store
    const conn = await connect({
      server: cfg.server,
      user: cfg.user,
      zone: cfg.zone,
      // The rest of the tenant's limit is left for people's live searches.
      rateLimit: workerRateLimit(cfg),
      logger,
      signal: stop.signal,
      newLimiter: parts.newLimiter,
      onRateLimited: () => metrics.rateLimited++
    }).catch(async (e: unknown) => {
      // A refused password (rotated on the service) is shown by team status as failing, not
      // only in this log: the worker exits and its service manager starts it again.
      if (!stop.signal.aborted) await recordStartFailure(opened, cfg.scopes, workerName, e)
      throw e
    })
    const worker = new TeamWorker({
      store,
      source: conn.session,
      clock: systemClock,
      logger,
      rateLimit: conn.rateLimit,
      lookbackHours: cfg.lookbackHours,
      intervalMs: Math.round(cfg.intervalMinutes * 60_000),
      heartbeatMs: Math.round(cfg.heartbeatSeconds * 1000),
      scopes: cfg.scopes,
      memberships: membershipPlan(cfg.memberships),
      fullPassEveryMs: cfg.fullPassEvery === false ? null : cfg.fullPassEvery,
      passConcurrency,
      workerName,
      metrics,
      waits: conn.waits,
      pace: () => conn.limiter.status,
      relogin: async () => conn.session.login(cfg.user, await readPassword())
    })
    const r = await worker.run(stop.signal, { once: values.once })
    return values.once && r.failures > 0 ? EXIT.failure : EXIT.ok
  } catch (e) {
    if (stop.signal.aborted) return EXIT.ok
    logger.log('error', 'the worker could not start', { error: toErrorInfo(e) })
    throw e
  } finally {
    process.off('SIGTERM', onTerm)
    signal.removeEventListener('abort', onAbort)
    await store?.close()
  }
}
