/**
 * Geometry of a fixed-row-height virtual list that may be taller than a browser can scroll.
 * Chromium caps an element's height near 33.5 million px; a million 30 px rows need 30
 * million. Past MAX_SCROLL_PX the scrollbar is scaled: the scroll fraction maps onto the
 * full virtual height, and rows are drawn in a viewport-sized layer that stays in view.
 */
export const MAX_SCROLL_PX = 8_000_000

export interface ScrollGeometry {
  total: number
  rowHeight: number
  viewportHeight: number
}

/** The real height of the scrollable content. */
export function spacerHeight(g: ScrollGeometry, maxPx = MAX_SCROLL_PX): number {
  return Math.min(g.total * g.rowHeight, maxPx)
}

function virtualHeight(g: ScrollGeometry): number {
  return g.total * g.rowHeight
}

/** The first row to draw for a scroll position, and how far it is scrolled out of view. */
export function windowAt(scrollTop: number, g: ScrollGeometry, maxPx = MAX_SCROLL_PX): { first: number; shiftPx: number; count: number } {
  const realRange = spacerHeight(g, maxPx) - g.viewportHeight
  const virtualRange = virtualHeight(g) - g.viewportHeight
  const top = realRange <= 0 || virtualRange <= 0 ? 0 : (Math.min(Math.max(scrollTop, 0), realRange) / realRange) * virtualRange
  // The epsilon absorbs float error from the scaling, so scrollTopForRow(n) reads back as n.
  const first = Math.min(Math.floor(top / g.rowHeight + 1e-6), Math.max(0, g.total - 1))
  const shiftPx = Math.max(0, top - first * g.rowHeight)
  const count = Math.min(Math.ceil((g.viewportHeight + shiftPx) / g.rowHeight) + 1, Math.max(0, g.total - first))
  return { first, shiftPx, count }
}

/** The scrollTop that shows `row` at the top of the viewport (clamped at the end). */
export function scrollTopForRow(row: number, g: ScrollGeometry, maxPx = MAX_SCROLL_PX): number {
  const realRange = spacerHeight(g, maxPx) - g.viewportHeight
  const virtualRange = virtualHeight(g) - g.viewportHeight
  if (realRange <= 0 || virtualRange <= 0) return 0
  const top = Math.min(row * g.rowHeight, virtualRange)
  return (top / virtualRange) * realRange
}

/** The scrollTop that brings `row` fully into view with the least movement, or null if it is. */
export function scrollTopToReveal(row: number, scrollTop: number, g: ScrollGeometry, maxPx = MAX_SCROLL_PX): number | null {
  const w = windowAt(scrollTop, g, maxPx)
  const fullyVisible = Math.floor(g.viewportHeight / g.rowHeight)
  const firstFull = w.shiftPx > 0 ? w.first + 1 : w.first
  if (row >= firstFull && row < w.first + fullyVisible) return null
  if (row < firstFull) return scrollTopForRow(row, g, maxPx)
  return scrollTopForRow(Math.max(0, row - fullyVisible + 1), g, maxPx)
}
