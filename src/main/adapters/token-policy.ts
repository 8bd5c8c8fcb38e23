import type { TokenPersistence } from '../../core/app/host-ports'

/**
 * Whether refresh tokens may be written to disk on this machine. Electron's safeStorage
 * "encrypts" with a hard-coded key when Linux offers no keyring (backend basic_text), which
 * protects nothing; like Signal Desktop we treat that as no encryption at all. Then tokens
 * stay in memory, nothing weak is written, and the user is told why the next start will
 * ask them to sign in again.
 */
export interface KeyringFacts {
  platform: NodeJS.Platform | string
  /** safeStorage.isAsyncEncryptionAvailable(), asked after the app is ready. */
  available: boolean
  /** safeStorage.getSelectedStorageBackend() on Linux; null elsewhere. */
  linuxBackend: string | null
}

export interface TokenPolicy extends TokenPersistence {
  /** Stored beside the ciphertext: a change of backend means old ciphertext is dropped. */
  backend: string
}

const WEAK_LINUX_BACKENDS = new Set(['basic_text', 'unknown'])

export const NOTICE_NO_KEYRING =
  'No system keyring (such as GNOME Keyring or KWallet) was found, so Callsight keeps your sign-in only while it runs. You will have to sign in again after a restart.'
export const NOTICE_ENCRYPTION_UNAVAILABLE =
  "The system's secure storage is not available, so Callsight keeps your sign-in only while it runs. You will have to sign in again after a restart."

export function decideTokenPolicy(facts: KeyringFacts): TokenPolicy {
  const backend = `electron-safestorage:${backendName(facts)}`
  if (facts.platform === 'linux' && (facts.linuxBackend === null || WEAK_LINUX_BACKENDS.has(facts.linuxBackend))) {
    return { persist: false, backend, notice: NOTICE_NO_KEYRING, noticeCode: 'noKeyring' }
  }
  if (!facts.available) return { persist: false, backend, notice: NOTICE_ENCRYPTION_UNAVAILABLE, noticeCode: 'encryptionUnavailable' }
  return { persist: true, backend, notice: null, noticeCode: null }
}

function backendName(facts: KeyringFacts): string {
  if (facts.platform === 'linux') return facts.linuxBackend ?? 'unknown'
  if (facts.platform === 'darwin') return 'keychain'
  if (facts.platform === 'win32') return 'dpapi'
  return String(facts.platform)
}
