import Database from 'better-sqlite3'

/**
 * Secondary B-tree indexes a first bulk pull into an empty cache leaves out until its end
 * (deferred-index.ts), built then in one sorted pass each. Nothing reads them during that
 * pull (other opens are refused while its index is built; its own lookups go by call_id and
 * by the membership key), while keeping them up to date row by row inserted into the middle
 * of a growing tree: `calls_by_date` takes calls in change order, not date order.
 * The statements are migration 1's, with IF NOT EXISTS: a pull killed before its end leaves
 * them out, and the next writable open (settleIndexBuild) builds them with the index.
 */
const DEFERRED_BTREES: ReadonlyArray<readonly [name: string, create: string]> = [
  ['calls_by_date', 'CREATE INDEX IF NOT EXISTS calls_by_date ON calls(call_at, call_id)'],
  ['scope_members_by_scope', 'CREATE INDEX IF NOT EXISTS scope_members_by_scope ON scope_members(scope, call)']
]

/** Inside the transaction that marks the build (the mark is what has them built again). */
export function dropDeferredBtrees(db: Database.Database): void {
  for (const [name] of DEFERRED_BTREES) db.exec(`DROP INDEX IF EXISTS ${name}`)
}

/** Builds those left out; nothing when they exist. */
export function createDeferredBtrees(db: Database.Database): void {
  for (const [, create] of DEFERRED_BTREES) db.exec(create)
}

/**
 * The same, on a short-lived connection of its own: sorting 1,000,000 calls' keys took about
 * 45 MB more resident memory on the cache's connection, whose temporary storage is in memory
 * (temp_store MEMORY for searches) and whose page cache is 64 MB; here the sort spills to a
 * temporary file past a 16 MB cache. The cache's connection sees the new schema at its next
 * statement.
 */
export function createDeferredBtreesApart(file: string, nativeBinding?: string): void {
  const db = new Database(file, nativeBinding === undefined ? {} : { nativeBinding })
  try {
    db.pragma('busy_timeout = 5000')
    db.pragma('temp_store = FILE')
    db.pragma('cache_size = -16384')
    db.transaction(() => createDeferredBtrees(db)).immediate()
  } finally {
    db.close()
  }
}
