import type Database from 'better-sqlite3'
import { IndexBuild, type IndexBatch } from './deferred-index'
import type { RecordWriter } from './ingest'

/**
 * The cache's side of a first bulk pull's index build (deferred-index.ts): while a build runs,
 * the writer's full-text rows are held for the transaction under way, sent to the build once
 * it commits and dropped if it rolls back, so the worker only ever indexes committed calls.
 */
export class DeferredIndexing {
  private build: IndexBuild | null = null
  /** The build whose worker may hold the cache's files, from its start to its end (close() waits for it). */
  private live: IndexBuild | null = null
  private held: IndexBatch[] = []

  get running(): boolean {
    return this.build !== null
  }

  async start(db: Database.Database, file: string, nativeBinding: string | undefined, writer: RecordWriter): Promise<void> {
    if (this.build !== null) throw new Error('an index build already runs')
    if (db.prepare('SELECT 1 FROM calls LIMIT 1').get() !== undefined) throw new Error('an index build needs an empty cache')
    const build = IndexBuild.create(db, file, nativeBinding)
    this.live = build
    try {
      await build.begin()
    } catch (e) {
      if (this.live === build) this.live = null
      throw e
    }
    this.build = build
    writer.divertIndex((b) => this.held.push(b))
  }

  /** The transaction committed: its rows go to the build. */
  committed(): void {
    const held = this.held
    this.held = []
    for (const b of held) this.build?.send(b)
  }

  rolledBack(): void {
    this.held = []
  }

  /** Waits while more than `n` committed batches wait for the build (bounds memory). */
  async drain(n: number): Promise<void> {
    await this.build?.drain(n)
  }

  /** Takes the built index in (one transaction); false when no build ran. */
  async finish(writer: RecordWriter): Promise<boolean> {
    const build = this.build
    if (build === null) return false
    this.build = null
    writer.divertIndex(null)
    try {
      await build.finish()
    } finally {
      if (this.live === build) this.live = null
    }
    return true
  }

  /** The build stops; its mark stays, so the next open finishes the index from the stored rows. */
  async abort(writer: RecordWriter | null): Promise<void> {
    const build = this.build
    if (build === null) return
    this.build = null
    writer?.divertIndex(null)
    try {
      await build.abort()
    } finally {
      if (this.live === build) this.live = null
    }
  }

  /**
   * The cache closes: the build's worker has closed its connections to the cache's files when
   * this returns (bounded wait), whether the build was starting, running or finishing. Its
   * mark stays, so the next open finishes the index from the stored rows.
   */
  stop(writer: RecordWriter | null): void {
    const live = this.live
    this.live = null
    this.build = null
    this.held = []
    writer?.divertIndex(null)
    live?.stop()
  }
}
