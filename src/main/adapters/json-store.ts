import Store from 'electron-store'
import { asJsonFile, type JsonFile, type JsonFileOptions } from '../../host/json-file'

export type { JsonFile, JsonFileOptions }

/** One JSON file in a folder, written atomically by electron-store. */
export function openJsonFile(opts: JsonFileOptions): JsonFile {
  return asJsonFile(
    new Store<Record<string, unknown>>({
      name: opts.name,
      cwd: opts.cwd,
      clearInvalidConfig: opts.clearInvalid,
      // Keys are opaque ids (account ids contain dots); never paths into nested objects.
      accessPropertiesByDotNotation: false
    })
  )
}
