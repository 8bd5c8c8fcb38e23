import { z } from 'zod'
import { AppErrorInfo } from './errors'

/**
 * The team cache (docs/team.md) as the app sees it: where an account's calls come from when
 * a worker syncs them into PostgreSQL for the whole team. The password never travels with
 * it: the app keeps it encrypted like tokens.
 */
export const TeamSslMode = z.enum(['disable', 'require', 'verify-ca', 'verify-full'])
export type TeamSslMode = z.infer<typeof TeamSslMode>

/** Query parameters of a connection string that can carry a secret (password, sslpassword, …). */
export const isSecretParam = (name: string): boolean => /pass(word)?$|secret|token/i.test(name)

/**
 * Where a connection string carries a password, in words for a message ("user:password@",
 * "?sslpassword="), or null when it carries none (or is no URL at all).
 */
export function passwordInUrl(url: string): string | null {
  let u: URL
  try {
    u = new URL(url.trim())
  } catch {
    return null
  }
  if (u.password) return 'user:password@'
  for (const key of u.searchParams.keys()) if (isSecretParam(key)) return `?${key}=`
  return null
}

const withoutPassword = (url: string): boolean => {
  try {
    new URL(url)
  } catch {
    return false
  }
  return passwordInUrl(url) === null
}

export const TeamCacheUrl = z
  .string()
  .trim()
  .max(2000)
  .regex(/^postgres(ql)?:\/\/[^/]/i, 'Write it as postgres://USER@HOST:PORT/DATABASE')
  .refine(withoutPassword, { message: 'Give the password in its own field, not in the address' })

export const TeamCacheSource = z.object({
  url: TeamCacheUrl,
  schema: z.string().regex(/^[a-z][a-z0-9_]{0,47}$/, 'Lower-case letters, digits and _ (starting with a letter)'),
  sslMode: TeamSslMode.default('verify-full'),
  sslRootCert: z.string().min(1).max(4096).nullable().default(null)
})
export type TeamCacheSource = z.infer<typeof TeamCacheSource>

/** The address with any password (user:password@, ?password=, ?sslpassword=, …) taken out. */
export function withoutSecrets(url: string): string {
  let u: URL
  try {
    u = new URL(url.trim())
  } catch {
    return url
  }
  if (passwordInUrl(url) === null) return url
  u.password = ''
  for (const key of [...u.searchParams.keys()]) if (isSecretParam(key)) u.searchParams.delete(key)
  return u.toString()
}

/**
 * The team cache source as stored in settings. A form or request with a password in the
 * address is refused (TeamCacheSource); one already stored by an earlier version loses the
 * password when read, so the settings file is not set aside as invalid (with the account)
 * and the next save writes it without.
 */
export const StoredTeamCacheSource = TeamCacheSource.extend({ url: z.string().transform(withoutSecrets).pipe(TeamCacheUrl) })

export const TeamPullProgress = z.object({
  runId: z.string(),
  phase: z.enum(['pulling', 'done', 'cancelled', 'failed']),
  calls: z.number().int().nonnegative(),
  members: z.number().int().nonnegative(),
  batches: z.number().int().nonnegative(),
  totalCalls: z.number().int().nonnegative(),
  cursor: z.number().int().nonnegative(),
  callsPerSecond: z.number().nonnegative(),
  /** Rows refused for a value larger than a pull takes; the rest of the pull went on. */
  refused: z.number().int().nonnegative().optional(),
  refusals: z.array(AppErrorInfo).max(20).optional(),
  /** Why the pull emptied what it had pulled and started over (a restored or reset team cache). */
  notice: z.string().max(500).optional(),
  /** The same reason as a code, for the app to say it in its language (TeamRestartNotice). */
  noticeCode: z.enum(['generation', 'behind']).optional(),
  /** Calls dropped locally for leaving the window (their review data stays). */
  dropped: z.number().int().nonnegative().optional(),
  /** Calls brought in by widening the window (a backfill by call date). */
  backfilled: z.number().int().nonnegative().optional(),
  error: AppErrorInfo.optional()
})
export type TeamPullProgress = z.infer<typeof TeamPullProgress>

/**
 * The app's own pulls on a schedule (Settings, "Pull from the team cache every N minutes"):
 * when the last one succeeded, when the next one is due, and whether it is backing off
 * because the team cache cannot be reached.
 */
export const TeamSchedule = z.object({
  /** Minutes between pulls; 0: the app pulls only when asked. */
  everyMinutes: z.number().int().nonnegative(),
  /** The last pull that ended well (scheduled or asked for): what the cache is "as of". */
  lastSuccessAt: z.number().nullable(),
  /** When the next scheduled pull starts; null when none is scheduled (off, or no team cache). */
  nextAt: z.number().nullable(),
  /** Scheduled pulls failed in a row since the last success (the wait doubles while PostgreSQL is unreachable). */
  failures: z.number().int().nonnegative(),
  lastError: AppErrorInfo.nullable()
})
export type TeamSchedule = z.infer<typeof TeamSchedule>

/**
 * A worker's scope as workstations see it (docs/team.md, "Worker state"): running (lock held,
 * lease renewed), interrupted (marked running, but its process died: the lock is gone), stale
 * (lock held, lease lapsed: hung or cut off), idle.
 */
export const TeamWorkerLiveness = z.enum(['running', 'interrupted', 'stale', 'idle'])
export type TeamWorkerLiveness = z.infer<typeof TeamWorkerLiveness>

export const TeamWorkerScope = z.object({
  name: z.string(),
  worker: z.string(),
  running: z.boolean(),
  status: TeamWorkerLiveness,
  lastSuccessAt: z.number().nullable(),
  lastOutcome: z.string().nullable(),
  lastErrorMessage: z.string().nullable(),
  nextRunAt: z.number().nullable(),
  updatedAt: z.number()
})
export type TeamWorkerScope = z.infer<typeof TeamWorkerScope>

/** Review changes saved here and not yet in the team cache ("N changes waiting"). */
export const ReviewQueue = z.object({
  waiting: z.number().int().nonnegative(),
  /** Changes the team cache refused (a removed role): kept here, exportable. */
  refused: z.number().int().nonnegative(),
  /** Why the last push or pull of review data failed, when it did. */
  error: AppErrorInfo.nullable().optional(),
  /**
   * After a sync with the team cache: how many review rows its pull brought (its own echoed included). The
   * screens showing lists, assignments, progress or calibration rounds read again when > 0.
   */
  arrived: z.number().int().nonnegative().optional(),
  /**
   * Removals of calls from a review list the team cache just refused (only a lead may remove
   * from a shared list): the calls are back in the list here, and the Review screen says so.
   */
  refusedRemovals: z
    .array(z.object({ listId: z.string().uuid(), calls: z.number().int().positive() }))
    .max(1000)
    .optional()
})
export type ReviewQueue = z.infer<typeof ReviewQueue>

/**
 * What a workstation holds of the team cache (docs/team.md, "Windows"): the calls of the
 * last `days` days, counted back from the moment of each pull; null: everything.
 */
export const TeamWindow = z.object({
  days: z.number().int().min(1).max(36_500).nullable(),
  /**
   * The worker scopes held, by their names in the worker config: only calls that are members
   * of one of them. Null: every scope; absent: the scopes held already. A changed choice
   * empties what was pulled and pulls anew.
   */
  scopes: z.array(z.string().trim().min(1).max(200)).min(1).max(100).nullable().optional()
})
export type TeamWindow = z.infer<typeof TeamWindow>

/** The window a cache holds now: the choice, the call date it starts at (null: everything) and its calls. */
export const TeamWindowInfo = TeamWindow.extend({
  start: z.number().nullable(),
  calls: z.number().int().nonnegative(),
  /** The cache file's size in bytes. */
  bytes: z.number().int().nonnegative()
})
export type TeamWindowInfo = z.infer<typeof TeamWindowInfo>

export const TeamStatus = z.object({
  /** Null when the active account has no team cache. */
  source: TeamCacheSource.nullable(),
  /** How far this computer has pulled. */
  cursor: z.number().int().nullable(),
  pulledAt: z.number().nullable(),
  workers: z.array(TeamWorkerScope),
  /** Set when the team cache could not be read just now (the local cache still works). */
  error: AppErrorInfo.nullable(),
  active: TeamPullProgress.nullable(),
  schedule: TeamSchedule,
  /** The review outbox of the active account's cache. */
  review: ReviewQueue.optional(),
  /** The window of the team cache this computer holds. */
  window: TeamWindowInfo.optional()
})
export type TeamStatus = z.infer<typeof TeamStatus>
