import type Database from 'better-sqlite3'
import type { RecordWriter } from './ingest/ingest'
import type { DeferredIndexing } from './ingest/deferred-indexing'
import { FTS_BULK_BUFFER, FTS_DEFAULT_BUFFER, setFtsBuffer } from './ingest/fts-buffer'

/** What the cache gives its bulk-pull facet: its connection, its index build, its writer and its write count. */
export interface BulkPullHost {
  db: Database.Database
  file: string
  nativeBinding: string | undefined
  /** The memory map search reads through (what bulkWriting(false) restores). */
  mmapBytes: number
  indexing: DeferredIndexing
  /** The writer, or null when the cache was opened read-only. */
  writer(): RecordWriter | null
  /** The writer; throws on a read-only cache. */
  requireWriter(): RecordWriter
  /** Counts a write search must follow (the index was completed). */
  wrote(): void
}

/**
 * `cache.bulk`: what a pull of many calls switches on in the cache (src/core/team/pull.ts,
 * the CLI's pull): the full-text index built beside the ingest in a worker thread, and the
 * connection's settings for writing far more than reading.
 */
export class BulkPull {
  private readonly db: Database.Database
  private readonly file: string
  private readonly nativeBinding: string | undefined
  private readonly mmapBytes: number
  private readonly indexing: DeferredIndexing

  constructor(private readonly host: BulkPullHost) {
    this.db = host.db
    this.file = host.file
    this.nativeBinding = host.nativeBinding
    this.mmapBytes = host.mmapBytes
    this.indexing = host.indexing
  }

  /**
   * For a first bulk pull into this (empty) cache: from now on the full-text rows are built
   * in a worker thread beside the ingest, and taken in by finishIndexBuild (deferred-index.ts).
   * Until then the cache's own index is incomplete and other opens refuse it.
   */
  async startIndexBuild(): Promise<void> {
    await this.indexing.start(this.db, this.file, this.nativeBinding, this.host.requireWriter())
  }

  /** Waits while more than `n` committed batches wait for the index build (bounds memory). */
  async indexBuildDrain(n: number): Promise<void> {
    await this.indexing.drain(n)
  }

  /** Takes in the index built beside the pull (one transaction); the index is complete after. */
  async finishIndexBuild(): Promise<void> {
    if (this.indexing.running && (await this.indexing.finish(this.host.requireWriter()))) this.host.wrote()
  }

  /** A pull that failed or was cancelled: the build stops; the next open finishes the index from the stored rows. */
  async abortIndexBuild(): Promise<void> {
    await this.indexing.abort(this.host.writer())
  }

  /**
   * For a pull of many calls. FTS5 keeps a whole batch's terms in memory and writes one
   * segment per batch (fts-buffer.ts). And the connection reads through SQLite's own page
   * cache instead of the memory map: a pull touches every page of the file once, and mapped,
   * each stayed in the process's resident memory (1,000,000 calls pulled as the app pulls, in
   * a Node process: 1,141–1,151 MB peak with the map, 304–370 MB without, in about the same
   * time; docs/team.md). Off restores both; search meanwhile works, reading without the map.
   */
  bulkWriting(on: boolean): void {
    this.host.requireWriter()
    setFtsBuffer(this.db, on ? FTS_BULK_BUFFER : FTS_DEFAULT_BUFFER)
    this.db.pragma(`mmap_size = ${on ? 0 : this.mmapBytes}`)
  }

  /**
   * For a process that only pulls (the CLI's pull): it writes far more than it reads, so
   * memory-mapped reads would only add the file to resident memory (+80 MB at 200,000 calls,
   * growing with the file), and appends need few cached pages: 16 MB instead of search's 64 MB.
   */
  readsForBulkPull(): void {
    this.db.pragma('mmap_size = 0')
    this.db.pragma('cache_size = -16384')
  }
}
