import { FOLD_FOR_INDEX_SOURCE } from '../fold'
import { FOR_EACH_JOINED_ID_SOURCE } from '../analysis-lists'
import { SHORT_INDEX_TABLE, SHORT_PREFIXES_SOURCE } from './short-prefixes'
import { WORKER_CONNECTION_SOURCE } from '../worker-connection'

/*
 * The worker's side of a first bulk pull's index build (deferred-index.ts holds the cache's
 * side): it reads the committed calls back, folds them and writes the side file's index.
 * Kept apart because it is source text, checked only when the worker runs it.
 */

/**
 * Plain JavaScript run in the worker (a string, like the WAL checkpointer's: no bundle entry).
 * Its folding is the cache's own foldForIndex, given as source text (fold.ts).
 */
export const INDEX_BUILD_WORKER_SOURCE = `
const { parentPort, workerData: o } = require('node:worker_threads')
const Database = require(o.module)
const native = o.nativeBinding ? { nativeBinding: o.nativeBinding } : {}
const fold = ${FOLD_FOR_INDEX_SOURCE}
// The short-prefix index's tokens, from the same folded text (short-prefixes.ts); null on a
// schema without it.
const shortPrefixes = o.shortSql ? ${SHORT_PREFIXES_SOURCE} : null
// A call's analysis list (schema 19: analysis-lists.ts) read as its value ids.
const forEachJoinedId = ${FOR_EACH_JOINED_ID_SOURCE}
${WORKER_CONNECTION_SOURCE}
// Its connections are tracked in a word shared with the cache (worker-connection.ts): the
// cache's close() returns only once they are closed, and if the cache closed before this
// thread got here it opens nothing.
function run() {
let db, cache, del, ins, delShort, insShort, rows, valuesAbove
try {
// The side file holds the calls' text too: 0600, never SQLite's 0644 less the umask.
require('node:fs').closeSync(require('node:fs').openSync(o.side, 'a', o.fileMode))
db = new Database(o.side, native)
// Held from the first write until close: another process sees the build as running.
db.pragma('locking_mode = EXCLUSIVE')
db.pragma('journal_mode = OFF')
db.pragma('synchronous = OFF')
db.pragma('cache_size = -16384')
db.exec(o.createSql)
db.prepare("INSERT INTO calls_fts (calls_fts, rank) VALUES ('hashsize', " + o.buildBuffer + ")").run()
del = db.prepare('DELETE FROM calls_fts WHERE rowid = ?')
ins = db.prepare('INSERT INTO calls_fts (rowid, title, summary, analysis) VALUES (?, ?, ?, ?)')
if (o.shortSql) {
  db.exec(o.shortSql)
  delShort = db.prepare('DELETE FROM ${SHORT_INDEX_TABLE} WHERE rowid = ?')
  insShort = db.prepare('INSERT INTO ${SHORT_INDEX_TABLE} (rowid, p) VALUES (?, ?)')
}
// The committed calls themselves, read from the cache (WAL: reading never waits for the
// pulling thread's writes): the same text IndexRows builds, the analysis values joined by
// spaces in their order.
cache = new Database(o.file, { readonly: true, fileMustExist: true, ...native })
cache.pragma('busy_timeout = 5000')
// Each page it reads was just written and is read once: SQLite's 16 MB default would only add to memory.
cache.pragma('cache_size = -2048')
rows = o.lists
  ? cache.prepare('SELECT c.id, c.title, c.summary, l.items FROM calls c LEFT JOIN analysis_lists l ON l.call = c.id WHERE c.id BETWEEN ? AND ? ORDER BY c.id').raw()
  : cache.prepare("SELECT c.id, c.title, c.summary, coalesce((SELECT group_concat(a.value, ' ' ORDER BY a.ord) FROM analysis a WHERE a.call = c.id), '') FROM calls c WHERE c.id BETWEEN ? AND ? ORDER BY c.id").raw()
valuesAbove = o.lists ? cache.prepare('SELECT id, value FROM analysis_values WHERE id > ?').raw() : null
} catch (e) {
  // Whatever it opened is closed before the cache hears of the failure.
  cache?.close()
  db?.close()
  closedNow()
  throw e
}
// The dictionary's values by id, read as far as the calls need (ids only grow).
const values = []
let valuesTop = 0
const valuesOf = (list) => {
  if (list === null) return ''
  const out = []
  forEachJoinedId(list, (_, id) => {
    if (values[id] === undefined) {
      for (const [v, text] of valuesAbove.all(valuesTop)) {
        values[v] = text
        valuesTop = v
      }
    }
    if (values[id] === undefined) throw new Error('analysis value ' + id + ' is not in the dictionary')
    out.push(values[id])
  })
  return out.join(' ')
}
const index = (lo, hi) => {
  for (const r of o.lists ? rows.all(lo, hi) : rows.iterate(lo, hi)) {
    if (o.lists) r[3] = valuesOf(r[3])
    const t = fold(r[1]), s = fold(r[2]), a = fold(r[3])
    ins.run(r[0], t, s, a)
    if (insShort) insShort.run(r[0], shortPrefixes([t, s, a]))
  }
}
parentPort.postMessage({ kind: 'ready' })
// One transaction for the whole build: FTS5 writes a segment when its pending terms pass
// o.buildBuffer, not at every batch's commit (fewer segments to merge, less CPU on this thread).
db.exec('BEGIN')
parentPort.on('message', (m) => {
  try {
    if (m.kind === 'rows') {
      // The cache waits for this thread to close: batches still queued are of no use.
      if (closing()) return
      for (const id of m.stale) {
        del.run(id)
        if (delShort) delShort.run(id)
      }
      // Ids come in order, mostly one run of new calls: one range read per run.
      const ids = m.ids
      for (let i = 0; i < ids.length; ) {
        let j = i
        while (j + 1 < ids.length && ids[j + 1] === ids[j] + 1) j++
        index(ids[i], ids[j])
        i = j + 1
      }
      parentPort.postMessage({ kind: 'ack' })
    } else if (m.kind === 'finish') {
      try {
        cache.close()
        db.exec('COMMIT')
        db.exec("INSERT INTO calls_fts (calls_fts) VALUES ('optimize')")
        if (o.shortSql) db.exec("INSERT INTO ${SHORT_INDEX_TABLE} (${SHORT_INDEX_TABLE}) VALUES ('optimize')")
        db.prepare("INSERT INTO calls_fts (calls_fts, rank) VALUES ('hashsize', " + o.defaultBuffer + ")").run()
        db.close()
      } catch (e) {
        // A failed end (disk full, side file gone): nothing more comes, so the thread ends
        // here, its connections closed, instead of waiting for messages that never come.
        try {
          if (cache.open) cache.close()
          if (db.open) db.close()
        } catch {
          // Its side file is scratch: the next open of the cache removes or rebuilds it.
        }
        closedNow()
        parentPort.postMessage({ kind: 'error', message: String(e && e.message || e), finishing: true })
        parentPort.close()
        return
      }
      closedNow()
      parentPort.postMessage({ kind: 'done' })
      parentPort.close()
    } else if (m.kind === 'abort') {
      try {
        cache.close()
        db.close()
      } finally {
        closedNow()
      }
      parentPort.close()
    }
  } catch (e) {
    parentPort.postMessage({ kind: 'error', message: String(e && e.message || e) })
  }
})
}
if (claimOpen()) run()
else parentPort.close()
`
