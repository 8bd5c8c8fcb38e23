import Store from 'electron-store'
import { PRIVATE_FILE_MODE } from '../../core/platform/private-files'
import { asJsonFile, type JsonFile, type JsonFileOptions } from '../../host/json-file'

export type { JsonFile, JsonFileOptions }

/** One JSON file in a folder, written atomically by electron-store. */
export function openJsonFile(opts: JsonFileOptions): JsonFile {
  return asJsonFile(
    new Store<Record<string, unknown>>({
      name: opts.name,
      cwd: opts.cwd,
      clearInvalidConfig: opts.clearInvalid,
      // Settings and the vault's ciphertext are the user's alone (conf's default is 0666 less the umask).
      configFileMode: PRIVATE_FILE_MODE,
      // Keys are opaque ids (account ids contain dots); never paths into nested objects.
      accessPropertiesByDotNotation: false
    })
  )
}
