import Store from 'electron-store'

/** One JSON file in a folder, written atomically by electron-store. */
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

export function openJsonFile(opts: JsonFileOptions): JsonFile {
  const store = new Store<Record<string, unknown>>({
    name: opts.name,
    cwd: opts.cwd,
    clearInvalidConfig: opts.clearInvalid,
    // Keys are opaque ids (account ids contain dots); never paths into nested objects.
    accessPropertiesByDotNotation: false
  })
  return {
    path: store.path,
    read: () => ({ ...store.store }),
    write: (value) => {
      store.store = value
    }
  }
}
