import Conf from 'conf'
import { PRIVATE_FILE_MODE, tightenFile } from '../core/platform/private-files'

/** One JSON file in a folder: settings.json, and the desktop's vault.json and window state. */
export interface JsonFile {
  readonly path: string
  read(): Record<string, unknown>
  write(value: Record<string, unknown>): void
}

export interface JsonFileOptions {
  /** Folder (absolute); the file is <cwd>/<name>.json. */
  cwd: string
  name: string
  /** Start empty instead of throwing when the file is not valid JSON. */
  clearInvalid: boolean
}

/** electron-store and conf hold the file's content in `store`; both write it on assignment. */
export interface StoreLike {
  readonly path: string
  store: Record<string, unknown>
}

export function asJsonFile(store: StoreLike): JsonFile {
  // Written with configFileMode 0600 from now on; a file an older version wrote wider is
  // tightened at once rather than at its next change.
  tightenFile(store.path)
  return {
    path: store.path,
    read: () => ({ ...store.store }),
    write: (value) => {
      store.store = value
    }
  }
}

/**
 * The same file as the desktop app's electron-store, without Electron: electron-store is a
 * thin Electron wrapper around conf (it only adds Electron's default folder and version), so
 * opening the file with conf and the same options reads and writes exactly what the desktop
 * app does — tab-indented JSON, written atomically.
 */
export function openConfFile(opts: JsonFileOptions): JsonFile {
  return asJsonFile(
    new Conf<Record<string, unknown>>({
      cwd: opts.cwd,
      configName: opts.name,
      clearInvalidConfig: opts.clearInvalid,
      // Settings and the vault's ciphertext are the user's alone (conf's default is 0666 less the umask).
      configFileMode: PRIVATE_FILE_MODE,
      // Keys are opaque ids (account ids contain dots); never paths into nested objects.
      accessPropertiesByDotNotation: false
    })
  )
}
