import { sameVersion, type ChangeSet, type DataReads, type DataVersion } from '../cache'

/**
 * What changed since a version a cache was built at:
 *  - none: nothing;
 *  - own-writes: only this connection wrote, and its journal says which calls;
 *  - unknown: another connection wrote, the cache was emptied, or the journal no longer
 *    reaches back that far (also for a cache never built): build again.
 */
export type DataChange = { kind: 'none' } | { kind: 'own-writes'; changes: ChangeSet } | { kind: 'unknown' }

/**
 * The one signal every search cache follows: the cache's data version. Each cache keeps the
 * version it was built at and asks what changed since; the per-query memory, the catalog,
 * prefix expansions and the call count start over on any change, the facet columns read
 * again only the calls this connection's writes added or changed.
 */
export class DataWatch {
  constructor(private readonly reads: DataReads) {}

  version(): DataVersion {
    return this.reads.version()
  }

  /** What changed since `builtAt` (null: never built), and the version now. */
  since(builtAt: DataVersion | null): { change: DataChange; now: DataVersion } {
    const now = this.reads.version()
    if (builtAt === null) return { change: { kind: 'unknown' }, now }
    if (sameVersion(builtAt, now)) return { change: { kind: 'none' }, now }
    if (builtAt.sqliteDataVersion !== now.sqliteDataVersion) return { change: { kind: 'unknown' }, now }
    const changes = this.reads.changesSince(builtAt.writeCount)
    return { change: changes === null ? { kind: 'unknown' } : { kind: 'own-writes', changes }, now }
  }
}

/** A value built from the data and built again after any change to it. */
export class PerVersion<T> {
  private value: T | undefined
  private builtAt: DataVersion | null = null
  private builtAtMs: number | null = null

  constructor(
    private readonly watch: DataWatch,
    private readonly build: () => T,
    private readonly now: () => number = Date.now
  ) {}

  get(): T {
    const { change, now } = this.watch.since(this.builtAt)
    if (change.kind !== 'none' || this.value === undefined) {
      this.value = this.build()
      this.builtAt = now
      this.builtAtMs = this.now()
    }
    return this.value
  }

  /**
   * Whether the data has stayed as it was when the value was built for at least `forMs`: the
   * cache is at rest (no sync or pull writing), so what is read now serves more than one
   * answer. Asks without building.
   */
  atRest(forMs: number): boolean {
    if (this.value === undefined || this.builtAtMs === null || this.now() - this.builtAtMs < forMs) return false
    return this.watch.since(this.builtAt).change.kind === 'none'
  }

  /** Builds again on the next get, whatever the version (benchmarks measure cold queries). */
  reset(): void {
    this.builtAt = null
  }
}
