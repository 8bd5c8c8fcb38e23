import type { ErrorCode } from '../shared/errors'

/** One exit code per class of error, so scripts can tell them apart. Shown in --help. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  credentials: 3,
  relogin: 4,
  ipNotAllowed: 5,
  rateLimited: 6,
  network: 7,
  server: 8,
  validation: 9,
  storage: 10,
  denseSecond: 11,
  /** search/export --strict: synced scopes do not answer the whole query. */
  notCovered: 12,
  /** team status: a worker's heartbeat lapsed (hung, or cut off from PostgreSQL). */
  workerStale: 13,
  /** team status: the last run of some scope failed. */
  workerFailing: 14,
  /** team status: no worker runs a scope (its next run is overdue, or none owns it). */
  workerStopped: 15,
  /** search --team: the team cache's search is off (its operator has not turned it on). */
  teamSearchOff: 16,
  cancelled: 130
} as const

const BY_CODE: Record<ErrorCode, number> = {
  InvalidInput: EXIT.usage,
  InvalidCredentials: EXIT.credentials,
  ReloginRequired: EXIT.relogin,
  Unauthorized: EXIT.relogin,
  NotSignedIn: EXIT.relogin,
  IpNotAllowed: EXIT.ipNotAllowed,
  Forbidden: EXIT.ipNotAllowed,
  TeamSearchOff: EXIT.teamSearchOff,
  RateLimited: EXIT.rateLimited,
  Network: EXIT.network,
  Timeout: EXIT.network,
  ServerError: EXIT.server,
  MalformedResponse: EXIT.server,
  Validation: EXIT.validation,
  UnknownCallType: EXIT.validation,
  NotFound: EXIT.validation,
  Storage: EXIT.storage,
  DatabaseTooNew: EXIT.storage,
  DenseSecond: EXIT.denseSecond,
  Cancelled: EXIT.cancelled,
  Internal: EXIT.failure
}

export const exitCodeFor = (code: ErrorCode): number => BY_CODE[code]

export const EXIT_HELP = `Exit codes:
  0    done
  1    unexpected internal error (details in the log)
  2    usage: a bad flag or value (InvalidInput)
  3    the user name or password was refused (InvalidCredentials)
  4    the session ended; sign in again (ReloginRequired, Unauthorized)
  5    this workstation's address is not allowed by the tenant (IpNotAllowed)
  6    rate limited beyond the retries (RateLimited)
  7    network failure or timeout (Network, Timeout)
  8    the service failed or answered nonsense (ServerError, MalformedResponse)
  9    the service refused the request (Validation, UnknownCallType)
  10   the cache file could not be used (Storage, DatabaseTooNew)
  11   sync finished, but a second held more calls than can be paged (DenseSecond)
  12   search or export --strict: synced scopes do not cover the whole query (the answer
       is printed; stderr names what to sync)
  13   team status: a worker is stale (no heartbeat: hung or cut off)
  14   team status: the last run of a scope failed (failing since …)
  15   team status: no worker runs a scope (stopped, or its next run overdue)
  16   search --team: the team cache does not search (its operator has not turned it on:
       callsight team search enable)
  130  cancelled (Ctrl-C); a sync keeps its checkpoint and continues next time`
