import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Modes for what Callsight keeps on disk: caches hold call summaries and the settings hold
 * account details, so only the user who runs the app may read them. The process umask is
 * never relied on (022 is the common default and leaves everything world-readable), and it
 * is not changed here: core is a library, and a umask belongs to the whole process.
 */
export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

// Windows ignores POSIX modes (chmod only toggles read-only there); the folder ACLs decide.
const posix = (): boolean => process.platform !== 'win32'

/** The files SQLite keeps beside a database, which it creates with the database's own mode. */
export const SQLITE_SIDECARS = ['-wal', '-shm', '-journal'] as const

/**
 * Creates a folder the app owns (and any missing parents) as 0700, and tightens it when it
 * already exists with wider modes (a folder made by an older version). Only for the app's
 * own folders, never one the user picked for exports.
 */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  if (posix()) chmodSync(dir, PRIVATE_DIR_MODE)
}

/**
 * Creates the file empty as 0600 when it is missing, and tightens it (and SQLite's sidecars
 * of it, if any are left) when it exists. Before SQLite opens a database: SQLite creates its
 * -wal and -shm files with the database's mode, so they follow.
 */
export function makePrivateFile(file: string, sidecars: readonly string[] = []): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE))
  tightenFile(file)
  for (const suffix of sidecars) tightenFile(`${file}${suffix}`)
}

/**
 * Sets 0600 on a regular file that exists; anything else (missing, a symlink, a file of
 * another user the app may only read) is left as it is. Returns whether it changed the mode.
 */
export function tightenFile(file: string): boolean {
  if (!posix()) return false
  try {
    const st = lstatSync(file)
    if (!st.isFile() || (st.mode & 0o777) === PRIVATE_FILE_MODE) return false
    chmodSync(file, PRIVATE_FILE_MODE)
    return true
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'EPERM' || code === 'EACCES') return false
    throw e
  }
}

/** The data folder's subfolders that hold the app's own files. */
const OWN_SUBFOLDERS = ['accounts', 'logs']

/**
 * Tightens a data folder an older version left world-readable: the folder and its `accounts`
 * and `logs` subfolders to 0700, the regular files directly in them to 0600. Symlinks are
 * never followed (the desktop app's SingletonLock is one), and nothing deeper is touched:
 * the folder's own mode already keeps other users out of everything below it.
 */
export function tightenDataDir(dir: string): void {
  makePrivateDir(dir)
  if (!posix()) return
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isFile()) tightenFile(path)
    else if (entry.isDirectory() && OWN_SUBFOLDERS.includes(entry.name)) {
      chmodSync(path, PRIVATE_DIR_MODE)
      for (const inner of readdirSync(path, { withFileTypes: true })) {
        if (inner.isFile()) tightenFile(join(path, inner.name))
      }
    }
  }
}
