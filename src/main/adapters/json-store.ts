import Store from 'electron-store'
import type { JsonFile, JsonFileOptions } from '../../host/json-file'

export type { JsonFile, JsonFileOptions }

/** One JSON file in a folder, written atomically by electron-store. */
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
