import Database from 'better-sqlite3'

/** Bytes of each B-tree of a SQLite file (tables, indexes, FTS5 shadow tables), largest first. */
export function sqliteSizes(file: string): { name: string; bytes: number }[] {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as {
      name: string
      bytes: number
    }[]
  } finally {
    db.close()
  }
}
