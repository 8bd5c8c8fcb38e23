/**
 * Old ways of serving searches, each as strategies given to createSearch, for the benches'
 * same-run baselines and the tests' reference answers. The product's defaults are its own.
 */
import type { SearchParts } from '../../src/core/search'
import type { CacheOpenOptions } from '../../src/core/cache/call-cache'
import { WHOLE_FILE_MMAP_BYTES } from '../../src/core/cache/schema/cache-db'
import { legacySortedPager } from './sorted-probe'

/** The first way sorted pages were served: fixed probe batches, the rare word's order walked whole, the date order read again after every write. */
export const LEGACY_SORT: SearchParts = { sortedPager: legacySortedPager, dateOrderMerge: null }

/** Review filters answered in SQL only, without the annotations in memory. */
export const SQL_REVIEWS: SearchParts = { reviewReads: null }

/** A first page's window reads a cold analysis key's whole column. */
export const WHOLE_COLUMN_WINDOW: SearchParts = { coldKeyInWindow: 'column' }

/** A first page's window on a search just opened reads the whole date order and quarter hours first (window, not window-slice). */
export const WHOLE_ORDER_WINDOW: SearchParts = { windowBeforeOrder: 'order' }

/**
 * Search as main serves it, for the scale section's same-run comparison: every strategy the
 * scale work added, switched off.
 */
export const MAIN_SCALE: SearchParts = {
  countSkip: false,
  keptSizes: false,
  prunedRank: false,
  wideExpansion: false,
  keptTerms: false,
  wordSets: false,
  termSets: false,
  listedOrder: false,
  keptColumnFacets: false,
  pageBeforeEstimate: false,
  idRange: false,
  quarterSpan: false,
  idRangeSpans: false,
  idRangeFirst: false
}

/** Every query's matches counted (its estimate) before its first page is chosen, as before window-first. */
export const ESTIMATE_FIRST: SearchParts = { pageBeforeEstimate: false }

/** Every common word read from FTS5 for each count, facet and window, as before word sets were kept. */
export const NO_WORD_SETS: SearchParts = { wordSets: false }

/** The cache as main opens it for search, for the same comparison: the whole file memory-mapped (up to 2 GB). */
export const MAIN_SCALE_OPEN: CacheOpenOptions = { mmapBytes: WHOLE_FILE_MMAP_BYTES }

/** A deep page after a count reads the whole match list (the bitmap plan), as before count-skip. */
export const LIST_DEEP_PAGE: SearchParts = { countSkip: false }

/** Relevance over a date range reads its span's row sizes for each ranking, as before they were kept by chunk. */
export const SPAN_SIZES: SearchParts = { keptSizes: false }
