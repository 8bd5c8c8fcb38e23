import { renameSync, writeFileSync } from 'node:fs'

interface ScopeNumbers {
  lastSuccessAt: number | null
  /** The end of the range the last successful run covered: lag is now minus it. */
  syncedTo: number | null
}

const esc = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

/**
 * The numbers an operator graphs, as a Prometheus text-format file (node_exporter's textfile
 * collector reads it): written whole to a temporary file and renamed, so a scrape never reads
 * half of it.
 */
export class WorkerMetrics {
  callsInCache: number | null = null
  changesApplied = 0
  callsFetched = 0
  requests = 0
  rateLimited = 0
  lastHeartbeatAt: number | null = null
  private readonly scopes = new Map<string, ScopeNumbers>()

  constructor(
    private readonly file: string | undefined,
    private readonly now: () => number
  ) {}

  scope(name: string): ScopeNumbers {
    let s = this.scopes.get(name)
    if (!s) {
      s = { lastSuccessAt: null, syncedTo: null }
      this.scopes.set(name, s)
    }
    return s
  }

  text(up: boolean): string {
    const now = this.now()
    const out: string[] = []
    const metric = (name: string, type: string, help: string, rows: Array<[string, number]>): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
      for (const [labels, v] of rows) out.push(`${name}${labels} ${Number.isFinite(v) ? v : 0}`)
    }
    const per = (f: (s: ScopeNumbers) => number | null): Array<[string, number]> =>
      [...this.scopes].flatMap(([n, s]) => {
        const v = f(s)
        return v === null ? [] : [[`{scope="${esc(n)}"}`, v] as [string, number]]
      })
    metric('callsight_worker_up', 'gauge', 'Whether the worker runs (0 after a clean stop).', [['', up ? 1 : 0]])
    if (this.lastHeartbeatAt !== null)
      metric('callsight_worker_last_heartbeat_seconds', 'gauge', 'When the worker last wrote its heartbeat (Unix time).', [
        ['', this.lastHeartbeatAt / 1000]
      ])
    if (this.callsInCache !== null) metric('callsight_team_calls', 'gauge', 'Calls in the team cache.', [['', this.callsInCache]])
    metric('callsight_worker_changes_applied_total', 'counter', 'Calls inserted or changed in the team cache.', [['', this.changesApplied]])
    metric('callsight_worker_calls_fetched_total', 'counter', 'Calls fetched from the service.', [['', this.callsFetched]])
    metric('callsight_worker_requests_total', 'counter', 'Requests made to the service.', [['', this.requests]])
    metric('callsight_worker_rate_limited_total', 'counter', 'Answers 429 (rate limited) from the service.', [['', this.rateLimited]])
    metric(
      'callsight_worker_last_success_seconds',
      'gauge',
      'When each scope last synced successfully (Unix time).',
      per((s) => (s.lastSuccessAt === null ? null : s.lastSuccessAt / 1000))
    )
    metric(
      'callsight_worker_lag_seconds',
      'gauge',
      'Now minus the newest moment each scope has synced.',
      per((s) => (s.syncedTo === null ? null : Math.max(0, (now - s.syncedTo) / 1000)))
    )
    return `${out.join('\n')}\n`
  }

  /** Writes the file (when one was asked for); a failure is the caller's to log. */
  write(up = true): void {
    if (this.file === undefined) return
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, this.text(up))
    renameSync(tmp, this.file)
  }
}
