import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { WORKER_CONNECTION_SOURCE, WorkerConnection } from '../worker-connection'

/**
 * WAL pages at which the committing connection checkpoints itself: a safety net only, so the
 * WAL cannot grow without bound if the checkpointer below never runs (40 MB at 4 KB pages).
 * SQLite's default (1,000) put a checkpoint — writing and syncing scattered pages of the
 * file — on whichever commit crossed it: a save's p95 was that (docs/review.md).
 */
export const WAL_SAFETY_PAGES = 10_000
/** SQLite's default, put back when the checkpointer cannot run. */
const WAL_DEFAULT_PAGES = 1_000

export interface CheckpointerOptions {
  /** Checkpoint once no other connection committed for this long (ms). */
  idleMs?: number
  /** Checkpoint anyway after writes went on this long without a pause (a sync). */
  maxDirtyMs?: number
  /** How often the worker looks for commits (ms). */
  pollMs?: number
  /** better-sqlite3's nativeBinding (Electron's build), as the cache was opened with. */
  nativeBinding?: string
}

/** What the worker reports after each checkpoint (tests and benchmarks). */
export interface CheckpointReport {
  /** WAL frames, and how many of them were copied into the database. */
  log: number
  checkpointed: number
  busy: number
}

// Plain JavaScript run in the worker (a string, so it needs no bundle entry of its own). It
// opens its own connection and watches PRAGMA data_version, which moves when another
// connection commits; once commits pause for idleMs (or have gone on for maxDirtyMs) it runs
// a PASSIVE checkpoint, which never waits for and never blocks the writer.
//
// Its connection is tracked in a word shared with the cache (worker-connection.ts), so the
// cache's close() returns only once it is closed.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const o = workerData
${WORKER_CONNECTION_SOURCE}
function run() {
  const Database = require(o.module)
  let db
  try {
    db = new Database(o.file, o.nativeBinding ? { nativeBinding: o.nativeBinding, fileMustExist: true } : { fileMustExist: true })
  } catch (e) {
    closedNow()
    throw e
  }
  db.pragma('busy_timeout = 0')
  const version = db.prepare('PRAGMA data_version').pluck()
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').raw(true)
  let seen = version.get()
  // Commits made before this thread started are not seen as a change: start dirty.
  let dirtySince = Date.now()
  let changedAt = dirtySince
  let closed = false
  const tick = () => {
    if (closed) return
    const now = Date.now()
    const v = version.get()
    if (v !== seen) {
      seen = v
      changedAt = now
      if (dirtySince === 0) dirtySince = now
      if (now - dirtySince < o.maxDirtyMs) return
    } else if (dirtySince === 0 || now - changedAt < o.idleMs) return
    let r
    try { r = checkpoint.get() } catch (e) { r = [1, -1, -1] }
    const [busy, log, checkpointed] = r
    // Frames a reader still needs are copied on a later pause.
    dirtySince = busy === 0 && checkpointed === log ? 0 : now
    parentPort.postMessage({ busy, log, checkpointed })
  }
  const timer = setInterval(tick, o.pollMs)
  parentPort.on('message', (m) => {
    if (m !== 'close' || closed) return
    closed = true
    clearInterval(timer)
    try { db.close() } finally { closedNow() }
    parentPort.close()
  })
  parentPort.postMessage('ready')
}
// The cache may have closed before this thread got here: then it never opens the file.
if (claimOpen()) run()
else parentPort.close()
`

/**
 * Checkpoints a WAL database off the committing path: a worker thread with its own
 * connection to the file runs PASSIVE checkpoints while the cache is idle, and the cache's
 * connection keeps only a high auto-checkpoint as a safety net. If the worker cannot start
 * (no better-sqlite3 it can load), the cache goes back to SQLite's default.
 */
export class WalCheckpointer {
  private worker: Worker | null = null
  private readonly listeners = new Set<(r: CheckpointReport) => void>()
  /** Checkpoints the worker reported. */
  checkpoints = 0
  private stopped = false
  private readonly conn = new WorkerConnection()

  constructor(
    file: string,
    /** Sets the cache connection's wal_autocheckpoint. */
    private readonly setAutoPages: (pages: number) => void,
    opts: CheckpointerOptions = {}
  ) {
    const fallback = (): void => {
      if (this.stopped) return
      this.worker = null
      setAutoPages(WAL_DEFAULT_PAGES)
    }
    try {
      const module = createRequire(import.meta.url).resolve('better-sqlite3')
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          module,
          file,
          connection: this.conn.workerData,
          nativeBinding: opts.nativeBinding,
          idleMs: opts.idleMs ?? 300,
          maxDirtyMs: opts.maxDirtyMs ?? 2_000,
          pollMs: opts.pollMs ?? 100
        }
      })
      // A checkpointer must never keep a process (the CLI, a test) alive.
      worker.unref()
      worker.on('error', fallback)
      worker.on('message', (m: CheckpointReport | 'ready') => {
        if (m === 'ready') return
        this.checkpoints++
        for (const l of this.listeners) l(m)
      })
      this.worker = worker
      setAutoPages(WAL_SAFETY_PAGES)
    } catch {
      fallback()
    }
  }

  /** The worker's connection to the file, as the worker last set it (tests, diagnostics). */
  get connection(): 'starting' | 'open' | 'closed' {
    return this.conn.status
  }

  /** Whether the worker runs. */
  get running(): boolean {
    return this.worker !== null
  }

  /** Called after each checkpoint the worker ran; returns the unsubscribe. */
  onCheckpoint(listener: (r: CheckpointReport) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Closes the worker's connection before returning, so the cache's own close is the last
   * one (SQLite then checkpoints and removes the WAL) and nothing touches the file after.
   * A worker that has not opened it yet never will.
   */
  stop(): void {
    const w = this.worker
    if (w === null) return
    this.worker = null
    this.stopped = true
    w.removeAllListeners()
    // The cache is closing: a worker that fails now (its file gone, say) changes nothing.
    w.on('error', () => undefined)
    // Past the wait's bound (a checkpoint that long), the next open finds the WAL and checkpoints it.
    this.conn.closeSync(w, 'close')
  }
}
