/**
 * Which rows of a result set are selected, by offset. A list of ids would not do: the result
 * set may hold a million rows that are never all in memory, and shift-click can span rows
 * that were never loaded. Ranges of offsets stay small whatever they cover; "all results" is
 * a flag, exported as the query itself rather than as ids.
 */
export interface Selection {
  all: boolean
  /** Inclusive [start, end] pairs, sorted and disjoint, not touching. */
  ranges: Array<readonly [number, number]>
  /** Where the last plain or toggle click landed: the fixed end of a shift range. */
  anchor: number | null
}

export interface ClickModifiers {
  shift: boolean
  /** Ctrl on Windows and Linux, Cmd on macOS. */
  toggle: boolean
}

export function emptySelection(): Selection {
  return { all: false, ranges: [], anchor: null }
}

export function allSelection(): Selection {
  return { all: true, ranges: [], anchor: null }
}

function normalize(ranges: Array<readonly [number, number]>): Array<readonly [number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0])
  const out: Array<[number, number]> = []
  for (const [s, e] of sorted) {
    const last = out[out.length - 1]
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], e)
    else out.push([s, e])
  }
  return out
}

function addRange(ranges: Selection['ranges'], start: number, end: number): Selection['ranges'] {
  return normalize([...ranges, [Math.min(start, end), Math.max(start, end)]])
}

function removeOffset(ranges: Selection['ranges'], offset: number): Selection['ranges'] {
  const out: Array<readonly [number, number]> = []
  for (const [s, e] of ranges) {
    if (offset < s || offset > e) out.push([s, e])
    else {
      if (s < offset) out.push([s, offset - 1])
      if (offset < e) out.push([offset + 1, e])
    }
  }
  return out
}

export function isSelected(sel: Selection, offset: number): boolean {
  if (sel.all) return true
  let lo = 0
  let hi = sel.ranges.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const r = sel.ranges[mid] as readonly [number, number]
    if (offset < r[0]) hi = mid - 1
    else if (offset > r[1]) lo = mid + 1
    else return true
  }
  return false
}

/**
 * A click on the row at `offset`, as in file managers: plain selects only it, toggle adds or
 * removes it, shift selects from the anchor to it (added to the rest when toggle is held too).
 * Inside "all results", a toggle click drops down to explicit ranges over `total`.
 */
export function clickRow(sel: Selection, offset: number, mods: ClickModifiers, total: number): Selection {
  const base: Selection = sel.all ? { all: false, ranges: total > 0 ? [[0, total - 1]] : [], anchor: sel.anchor } : sel
  if (mods.shift && base.anchor !== null) {
    const kept = mods.toggle ? base.ranges : []
    return { all: false, ranges: addRange(kept, base.anchor, offset), anchor: base.anchor }
  }
  if (mods.toggle) {
    const ranges = isSelected(base, offset) ? removeOffset(base.ranges, offset) : addRange(base.ranges, offset, offset)
    return { all: false, ranges, anchor: offset }
  }
  return { all: false, ranges: [[offset, offset]], anchor: offset }
}

/**
 * Opening the row at `offset` with a plain click: it is not a selection gesture (the selection
 * built by hand stays while calls are read one after another), but it is where a later
 * shift-click's range starts.
 */
export function openRow(sel: Selection, offset: number): Selection {
  return { ...sel, anchor: offset }
}

/** How many rows below `total` are selected. */
export function selectedCount(sel: Selection, total: number): number {
  if (sel.all) return total
  let n = 0
  // A range may reach past `total` (the rows below a position, a shorter list): only its part below counts.
  for (const [s, e] of sel.ranges) n += Math.max(0, Math.min(e, total - 1) - s + 1)
  return n
}

/** Every selected offset, in order, below `total` (core walks the ranges themselves for an export). */
export function* selectedOffsets(sel: Selection, total: number): Generator<number> {
  if (sel.all) {
    for (let i = 0; i < total; i++) yield i
    return
  }
  for (const [s, e] of sel.ranges) for (let i = s; i <= Math.min(e, total - 1); i++) yield i
}
