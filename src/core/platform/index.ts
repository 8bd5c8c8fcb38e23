/**
 * What core needs from the platform, as small interfaces. Electron's main process plugs in
 * safeStorage, electron-store and net.request; Node (tests, CLI) plugs in real equivalents.
 */

export interface Clock {
  /** Wall-clock epoch ms. */
  now(): number
  /** Resolves after ms, or rejects with a Cancelled CallsightError when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>

/** Encrypts secrets at rest. `secure` is false when the platform offers no real keyring. */
export interface Cipher {
  /** A stable name of the backend, stored beside the ciphertext (e.g. "gnome_libsecret", "aes-256-gcm"). */
  readonly backend: string
  readonly secure: boolean
  encrypt(plain: string): Promise<Uint8Array>
  decrypt(data: Uint8Array): Promise<string>
}

/** A small key-value store for secrets at rest (ciphertext only) and other persisted bits. */
export interface KeyValueStore {
  get(key: string): unknown
  set(key: string, value: unknown): void
  delete(key: string): void
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void
}
