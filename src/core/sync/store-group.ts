import type { WritePageInput } from '../cache'
import type { Logger } from '../platform'
import type { SyncStore } from './ports'

/**
 * Pages that have already arrived are stored together, up to this many, in one transaction
 * (group commit): when the service answers faster than pages are written, the commit is
 * paid once for all of them. A page is never held back waiting for another.
 */
export const MAX_GROUP = 20

/**
 * The store phase: pages applied to the checkpoint wait here until the engine is about to
 * wait on the network (or the group is full), then go to the cache in one transaction, each
 * with its own checkpoint and run counts, in order. All of a group is stored or none of it,
 * so a kill leaves the checkpoint of the last page that really is in the file.
 */
export class StoreGroup {
  private readonly held: WritePageInput[] = []

  constructor(
    private readonly store: Pick<SyncStore, 'writePages'>,
    private readonly max = MAX_GROUP
  ) {}

  /** Pages applied but not yet stored. */
  get size(): number {
    return this.held.length
  }

  /**
   * Holds a page; stores the group when it is full. Like flush, a promise only when the
   * store answers later, so a synchronous store (SQLite) adds no turn to the engine's loop.
   */
  add(page: WritePageInput): Promise<void> | undefined {
    this.held.push(page)
    return this.held.length >= this.max ? this.flush() : undefined
  }

  /**
   * Stores every page held, in one transaction. A promise only when the store answers later
   * (PostgreSQL); with SQLite the pages are stored when this returns.
   */
  flush(): Promise<void> | undefined {
    if (this.held.length === 0) return undefined
    const written = this.store.writePages(this.held.splice(0))
    return written instanceof Promise ? written.then(() => undefined) : undefined
  }

  /**
   * After a failure: the pages that arrived before it are good, so they are stored (the
   * checkpoint moves with them). When storing fails too, they are given up and logged; the
   * file keeps the checkpoint of the last group stored, and the next run fetches them again.
   */
  async salvage(logger: Logger): Promise<void> {
    try {
      await this.flush()
    } catch (e) {
      this.held.length = 0
      logger.log('error', 'Pages fetched before the failure could not be stored', { error: String(e) })
    }
  }
}
