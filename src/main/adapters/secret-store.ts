import type { KeyValueStore } from '../../core/platform'
import { openJsonFile, type JsonFile } from './json-store'

export const SECRETS_FILE = 'vault'

/** Bytes survive the JSON file as tagged base64. */
interface TaggedBytes {
  $bytes: string
}
const isTaggedBytes = (v: unknown): v is TaggedBytes =>
  typeof v === 'object' && v !== null && typeof (v as { $bytes?: unknown }).$bytes === 'string'

export type OpenJsonFile = (cwd: string, name: string) => JsonFile
const openClearingInvalid: OpenJsonFile = (cwd, name) => openJsonFile({ cwd, name, clearInvalid: true })

/**
 * A KeyValueStore in <cwd>/<name>.json. Uint8Array values round-trip. A file that is not
 * JSON is dropped and the store starts empty: what lives here (window bounds, ciphertext)
 * can always be recreated, so it must never stop the app.
 */
export function openKeyValueFile(cwd: string, name: string, open: OpenJsonFile = openClearingInvalid): KeyValueStore {
  const file = open(cwd, name)
  return {
    get(key) {
      const v = file.read()[key]
      return isTaggedBytes(v) ? new Uint8Array(Buffer.from(v.$bytes, 'base64')) : v
    },
    set(key, value) {
      const stored = value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString('base64') } : value
      file.write({ ...file.read(), [key]: stored })
    },
    delete(key) {
      const all = file.read()
      if (!(key in all)) return
      delete all[key]
      file.write(all)
    }
  }
}

/**
 * The token vault's own file (ciphertext and the backend's name, nothing else), apart from
 * settings so that a settings backup or a support bundle never carries it. An unreadable
 * file is dropped: the user signs in again, the app runs.
 */
export function openSecretStore(cwd: string, open?: OpenJsonFile): KeyValueStore {
  return openKeyValueFile(cwd, SECRETS_FILE, open)
}
