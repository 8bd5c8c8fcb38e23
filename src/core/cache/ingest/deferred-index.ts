import { existsSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { CallsightError } from '../../errors'
import { PRIVATE_FILE_MODE } from '../../platform/private-files'
import { createDeferredBtrees, createDeferredBtreesApart, dropDeferredBtrees } from './deferred-btrees'
import { hasAnalysisLists } from '../analysis-lists'
import { FTS_DEFAULT_BUFFER, settleFtsMerging } from './fts-buffer'
import { clearIndex, reindexAll } from './reindex'
import { fillTermList } from './term-list'
import { hasShortIndex, SHORT_INDEX_TABLE } from './short-prefixes'
import { WorkerConnection } from '../worker-connection'
import { INDEX_BUILD_WORKER_SOURCE } from './deferred-index-worker'

/**
 * The full-text index of a first bulk pull, built beside the ingest on the other core.
 *
 * A pull into an empty cache writes calls, items, memberships and totals in its batches as
 * always, but without their index rows: once a batch committed, the ids of its calls go to
 * a worker thread, which reads those calls back from the cache (its own read-only
 * connection), folds their text as IndexRows would (the same function, fold.ts) and inserts
 * the rows into the same FTS5 table in a side file (`<cache>.index-build`), all in one
 * transaction; it merges that index into one segment at the end, and the cache then takes
 * the finished index in one transaction by copying FTS5's tables (calls_fts_data, _idx,
 * _docsize, _config). The pulling thread neither folds, nor builds, nor posts the rows'
 * text (profile in docs/team.md); the index costs the same, on the second core. The
 * B-tree indexes nothing reads during such a pull are built at its end (deferred-btrees.ts).
 *
 * Crash safety: `index_build` (cache migration 12) holds one row from before the first batch
 * without index rows until the transaction that copies the index in. While it is there the
 * cache's own index is incomplete, so the cache refuses to open for search: when the side
 * file is locked, a pull is still building it ("open it when the pull is done"); otherwise
 * that pull was killed, and the next writable open rebuilds the index from the stored rows
 * (reindexAll, as migration 7 does) before anything reads it. The side file is only ever a
 * scratch copy: journal off, never trusted after its process died.
 */

const FTS_TABLES = ['data', 'idx', 'docsize', 'config'] as const

/**
 * FTS5's pending terms the build holds before it writes a segment. Its transaction spans the
 * whole build, so this is memory held all along: 32 MB (a pull batch's FTS_BULK_BUFFER) cost
 * ~30 MB of peak resident memory at 200,000 calls; 8 MB (a segment every two or three
 * batches) did not (docs/team.md).
 */
const BUILD_BUFFER = 8 * 1024 * 1024

export const sideFileOf = (file: string): string => `${file}.index-build`

function removeSide(side: string): void {
  for (const f of [side, `${side}-journal`]) rmSync(f, { force: true })
}

/** Whether another connection holds the side file locked (its build is running). */
export function sideLocked(side: string, nativeBinding?: string): boolean {
  if (!existsSync(side)) return false
  let db: Database.Database | null = null
  try {
    db = new Database(side, { fileMustExist: true, ...(nativeBinding === undefined ? {} : { nativeBinding }) })
    db.pragma('busy_timeout = 0')
    db.prepare('SELECT count(*) FROM sqlite_master').get()
    return false
  } catch (e) {
    return (e as { code?: string }).code === 'SQLITE_BUSY' || (e as { code?: string }).code === 'SQLITE_LOCKED'
  } finally {
    db?.close()
  }
}

/** The side file of an unfinished build, or null (called on every open, after migrations). */
export function pendingBuild(db: Database.Database): string | null {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'index_build'").get()
  if (has === undefined) return null
  return (db.prepare('SELECT side_file FROM index_build WHERE id = 1').pluck().get() as string | undefined) ?? null
}

/**
 * On open: a build left by a pull that is gone is finished from the stored rows (writable),
 * or the open is refused (read-only; or the build still runs). FTS5's write buffer, set
 * larger by a bulk pull killed before it put it back, returns to its default here too.
 */
export function settleIndexBuild(
  db: Database.Database,
  readonly: boolean,
  nativeBinding?: string,
  progress?: (done: number, total: number) => void
): void {
  const side = pendingBuild(db)
  if (side !== null) {
    if (sideLocked(side, nativeBinding)) {
      throw new CallsightError('Storage', 'A pull is still building the search index of this cache.', {
        hint: 'Open it when the pull has finished.'
      })
    }
    if (readonly) {
      throw new CallsightError('Storage', 'The search index of this cache was left half built by a pull that stopped.', {
        hint: 'Open it once for writing (or pull again) to finish it.'
      })
    }
    // The cache's own index holds nothing of the build (its rows went to the side file).
    db.transaction(() => {
      createDeferredBtrees(db)
      clearIndex(db)
      reindexAll(db, progress)
      db.exec('DELETE FROM index_build')
    }).immediate()
    removeSide(side)
  } else if (!readonly) {
    // A pull killed after the transaction that took its index in, before it removed the
    // scratch copy: nothing refers to it any more (unless a build is just starting: locked).
    const left = sideFileOf(db.name)
    if (existsSync(left) && !sideLocked(left, nativeBinding)) removeSide(left)
  }
  if (!readonly) {
    const buffer = db.prepare("SELECT v FROM calls_fts_config WHERE k = 'hashsize'").pluck().get() as number | undefined
    if (buffer !== undefined && buffer !== FTS_DEFAULT_BUFFER) {
      db.prepare(`INSERT INTO calls_fts (calls_fts, rank) VALUES ('hashsize', ${FTS_DEFAULT_BUFFER})`).run()
    }
  }
}

/** One committed batch's index work, as IndexRows hands it over: calls whose old row goes, then the calls to index, in id order. */
export interface IndexBatch {
  stale: number[]
  ids: number[]
}

/** A running build: started on an empty cache, fed after each commit, finished or dropped. */
export class IndexBuild {
  private readonly worker: Worker
  private readonly side: string
  private inFlight = 0
  private failure: Error | null = null
  private waiters: Array<() => void> = []
  private finished: (() => void) | null = null
  private ready: (() => void) | null = null
  private done = false
  /** The worker's connections to the cache and the side file (worker-connection.ts). */
  private readonly conn = new WorkerConnection()
  private readonly exited: Promise<void>
  /** The short-prefix index's shadow tables, copied in with calls_fts's (none on older schemas). */
  private readonly shortTables: string[]

  /** Starts the worker; begin() then waits for it (the cache can close meanwhile: stop()). */
  static create(db: Database.Database, file: string, nativeBinding?: string): IndexBuild {
    return new IndexBuild(db, file, nativeBinding)
  }

  /**
   * Once the worker holds the side file locked, marks the build in the cache: from then on
   * another open sees it running (before, it would find nothing to refuse).
   */
  async begin(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.ready = resolve
      this.waiters.push(resolve)
    })
    if (this.failure) {
      await this.abort()
      throw this.failure
    }
    const db = this.db
    db.transaction(() => {
      db.prepare('INSERT INTO index_build (id, side_file, started_at) VALUES (1, ?, ?)').run(this.side, Date.now())
      dropDeferredBtrees(db)
    }).immediate()
  }

  private constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    private readonly nativeBinding?: string
  ) {
    this.side = sideFileOf(file)
    removeSide(this.side)
    const createSql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'calls_fts'").pluck().get() as string
    const shortSql = hasShortIndex(db)
      ? (db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(SHORT_INDEX_TABLE) as string)
      : null
    this.shortTables = shortSql === null ? [] : FTS_TABLES.map((t) => `${SHORT_INDEX_TABLE}_${t}`)
    this.worker = new Worker(INDEX_BUILD_WORKER_SOURCE, {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        side: this.side,
        fileMode: PRIVATE_FILE_MODE,
        file,
        nativeBinding,
        createSql,
        shortSql,
        lists: hasAnalysisLists(db),
        buildBuffer: BUILD_BUFFER,
        defaultBuffer: FTS_DEFAULT_BUFFER,
        connection: this.conn.workerData
      }
    })
    this.worker.on('message', (m: { kind: string; message?: string; finishing?: boolean }) => {
      if (m.kind === 'ack') this.inFlight--
      else if (m.kind === 'ready') this.ready?.()
      else if (m.kind === 'done') {
        this.done = true
        this.finished?.()
      } else if (m.kind === 'error' && m.finishing === true) {
        this.failure ??= new CallsightError('Storage', `The search index of the pull could not be finished: ${m.message}`, {
          hint: 'Check the free disk space, then pull again: the next open of the cache rebuilds the index from the calls already stored.'
        })
      } else if (m.kind === 'error') this.failure = new Error(`The search index could not be built: ${m.message}`)
      this.wake()
    })
    this.worker.on('error', (e) => {
      this.failure = e
      this.wake()
    })
    this.exited = new Promise<void>((resolve) =>
      this.worker.once('exit', () => {
        // A worker that ended before its index was done (the cache closed first) fails whoever waits.
        if (!this.done) this.failure ??= new Error('The search index could not be built: its worker stopped.')
        this.wake()
        resolve()
      })
    )
  }

  private wake(): void {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }

  /** After the batch's commit: only ids travel; the worker reads the committed rows. */
  send(batch: IndexBatch): void {
    if (this.failure) throw this.failure
    if (batch.stale.length === 0 && batch.ids.length === 0) return
    this.inFlight++
    this.worker.postMessage({ kind: 'rows', ...batch })
  }

  /** Waits until at most `n` batches wait for the worker: bounds the memory they hold. */
  async drain(n: number): Promise<void> {
    while (this.inFlight > n && !this.failure) await new Promise<void>((r) => this.waiters.push(r))
    if (this.failure) throw this.failure
  }

  /**
   * Lets the worker merge its index, then copies it into the cache in one transaction with
   * the end of the build (a connection of its own: FTS5's tables are written directly, which
   * better-sqlite3's defensive mode forbids, and the cache's connection then re-reads the
   * index as changed by another connection).
   */
  async finish(): Promise<void> {
    await this.drain(0)
    // Settles when the worker is done, or when it ended without being done (its finish step
    // failed, or it had stopped already): its exit, not only its 'done', ends the wait.
    const merged = new Promise<void>((resolve, reject) => {
      this.finished = resolve
      void this.exited.then(() => (this.done ? resolve() : reject(this.failure)))
      this.worker.postMessage({ kind: 'finish' })
    })
    // The peak of a first pull's memory is here, where the worker's merge, the sort below and
    // the copy-in meet: the cache's page cache (64 MB, full after a bulk write) is handed back
    // first, and the sort's connection reuses what it frees.
    this.db.pragma('shrink_memory')
    // While the worker merges its index, this thread sorts the B-tree indexes left out.
    try {
      createDeferredBtreesApart(this.file, this.nativeBinding)
    } finally {
      await merged
    }
    if (this.failure) throw this.failure
    const db = new Database(this.file, this.nativeBinding === undefined ? {} : { nativeBinding: this.nativeBinding })
    try {
      db.unsafeMode(true)
      db.pragma('busy_timeout = 5000')
      db.prepare('ATTACH ? AS side').run(this.side)
      db.transaction(() => {
        for (const t of FTS_TABLES) {
          db.exec(`DELETE FROM main.calls_fts_${t}; INSERT INTO main.calls_fts_${t} SELECT * FROM side.calls_fts_${t};`)
        }
        for (const t of this.shortTables) db.exec(`DELETE FROM main.${t}; INSERT INTO main.${t} SELECT * FROM side.${t};`)
        // The config tables came with them: the cache's own merge setting again.
        settleFtsMerging(db)
        // The kept term list from the index just taken in (the writer listed nothing while diverted).
        fillTermList(db)
        db.exec('DELETE FROM main.index_build')
      }).immediate()
      db.exec('DETACH side')
    } finally {
      db.close()
    }
    removeSide(this.side)
    // The cache's connection reads FTS5's structure again at its next statement.
    this.db.prepare('SELECT 1 FROM calls_fts_config LIMIT 1').get()
  }

  /** A failed or cancelled pull: the worker stops; the row stays, so the next open rebuilds. */
  async abort(): Promise<void> {
    this.worker.postMessage({ kind: 'abort' })
    await this.exited
  }

  /**
   * The cache closes: returns once the worker's connections are closed (bounded wait), or
   * once it is sure the worker will never open them. Whatever awaits the build then fails;
   * the row stays, so the next open rebuilds.
   */
  stop(): void {
    this.failure ??= new CallsightError('Storage', 'The cache was closed while a pull was building its search index.')
    this.conn.closeSync(this.worker, { kind: 'abort' })
    this.wake()
  }
}
