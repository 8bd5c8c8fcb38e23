/**
 * A bounded cache of result pages, fetched by offset as the list scrolls. Only `maxPages`
 * pages are ever held (least recently used go first), so memory stays flat however far the
 * user scrolls through a million rows. A reset (new query) starts a new result set: replies
 * to requests made for an earlier one are dropped instead of landing in the new result set.
 */
export type PageFetcher<Row> = (offset: number, limit: number) => Promise<Row[]>

export interface PageCacheOptions {
  pageSize?: number
  maxPages?: number
}

export class PageCache<Row> {
  readonly pageSize: number
  readonly maxPages: number
  private pages = new Map<number, Row[]>()
  private inflight = new Map<number, Promise<void>>()
  /** Bumped by reset(): which result set a reply belongs to. */
  private resultSet = 0
  private fetcher: PageFetcher<Row>

  /** Called after a page lands, so a view can re-render the rows it shows. */
  onChange: () => void = () => {}
  /** Called when a page fails; the page stays missing and is retried on the next ensure. */
  onError: (error: unknown) => void = () => {}

  constructor(fetcher: PageFetcher<Row>, options: PageCacheOptions = {}) {
    this.fetcher = fetcher
    this.pageSize = options.pageSize ?? 100
    this.maxPages = options.maxPages ?? 30
  }

  /**
   * Forget everything and fetch from a new source (a new query); `first` is that source's
   * first page when it was read already (the list swaps to a new query in one render).
   */
  reset(fetcher?: PageFetcher<Row>, first?: Row[]): void {
    if (fetcher) this.fetcher = fetcher
    this.resultSet++
    this.pages.clear()
    this.inflight.clear()
    if (first) this.pages.set(0, first)
  }

  /** The row at `offset` if its page is held; marks the page as recently used. */
  get(offset: number): Row | undefined {
    const index = Math.floor(offset / this.pageSize)
    const page = this.pages.get(index)
    if (!page) return undefined
    this.pages.delete(index)
    this.pages.set(index, page)
    return page[offset - index * this.pageSize]
  }

  /** Whether the page holding `offset` is loaded, without touching its recency. */
  has(offset: number): boolean {
    return this.pages.has(Math.floor(offset / this.pageSize))
  }

  get heldPages(): number {
    return this.pages.size
  }

  get heldRows(): number {
    let n = 0
    for (const p of this.pages.values()) n += p.length
    return n
  }

  /** Loads every page that covers [from, to), at most maxPages of them, nearest first. */
  async ensure(from: number, to: number): Promise<void> {
    if (to <= from) return
    const first = Math.floor(from / this.pageSize)
    const last = Math.min(Math.floor((to - 1) / this.pageSize), first + this.maxPages - 1)
    const waits: Array<Promise<void>> = []
    for (let i = first; i <= last; i++) {
      if (this.pages.has(i)) {
        this.get(i * this.pageSize)
        continue
      }
      waits.push(this.load(i))
    }
    await Promise.all(waits)
  }

  private load(index: number): Promise<void> {
    const pending = this.inflight.get(index)
    if (pending) return pending
    const resultSet = this.resultSet
    const task = this.fetcher(index * this.pageSize, this.pageSize)
      .then((rows) => {
        if (resultSet !== this.resultSet) return
        this.pages.set(index, rows)
        while (this.pages.size > this.maxPages) {
          const oldest = this.pages.keys().next().value as number
          this.pages.delete(oldest)
        }
        this.onChange()
      })
      .catch((error: unknown) => {
        if (resultSet === this.resultSet) this.onError(error)
      })
      .finally(() => {
        if (resultSet === this.resultSet) this.inflight.delete(index)
      })
    this.inflight.set(index, task)
    return task
  }
}
