import type Database from 'better-sqlite3'

/** FTS5's record of its segments: the row of id 10 in the index's data table (fts5_index.c). */
const STRUCTURE_ROWID = 10

/**
 * The number of segments on each level of a full-text index, level 0 first, read from FTS5's
 * structure record: 4 bytes of cookie, optionally the 4 bytes of its second version, then
 * varints (levels, segments, write counter, and per level the segments in a merge, the
 * segments, and each segment's fields: 3, or 8 in the second version).
 */
export function segmentsByLevel(db: Database.Database, table: string): number[] {
  const block = db.prepare(`SELECT block FROM ${table}_data WHERE id = ${STRUCTURE_ROWID}`).pluck().get() as Buffer | undefined
  if (block === undefined) return []
  let at = 4
  const varint = (): number => {
    let v = 0
    for (let k = 0; k < 9; k++) {
      const c = block[at++]!
      if (k === 8) return v * 256 + c
      v = v * 128 + (c & 0x7f)
      if ((c & 0x80) === 0) return v
    }
    return v
  }
  const v2 = block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1
  if (v2) at = 8
  const levels = varint()
  varint() // segments in all
  varint() // write counter
  const out: number[] = []
  for (let l = 0; l < levels; l++) {
    varint() // segments being merged
    const segments = varint()
    out.push(segments)
    for (let s = 0; s < segments * (v2 ? 8 : 3); s++) varint()
  }
  return out
}
