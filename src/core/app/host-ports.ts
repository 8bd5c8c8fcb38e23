import type { Writable } from 'node:stream'
import type { ChannelName, EventName } from '../../shared/ipc/names'
import type { EventPayload, ParsedRequest, Response } from '../../shared/ipc/contract'
import type { CallType, ExportDownload, RateLimit, SessionNoticeCode, Settings } from '../../shared/domain'
import type { Cipher, Clock, FetchLike, KeyValueStore, Logger } from '../platform'

/**
 * What the application controller gets from whichever shell runs it: the Electron main
 * process (src/main/app-context.ts) or the browser mode (src/web/browser-host.ts). Plain types only, so core
 * can depend on it without knowing about Electron.
 */

/** One function per contract channel. Requests arrive already validated. */
export type Handlers = {
  [C in ChannelName]: (request: ParsedRequest<C>, ctx: HandlerContext) => Promise<Response<C>>
}
export interface HandlerContext {
  /** The webContents id of the window that called; lets per-window state be kept apart. */
  senderId: number
}

/** Main → renderer events, validated against the contract before they leave. */
export interface EventSink {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void
}

/** Settings persisted on disk, always valid when read. */
export interface SettingsStore {
  get(): Settings
  /** Validates and persists the whole object; returns what was stored. */
  set(next: Settings): Settings
}

/** How refresh tokens may be kept on this machine; decided once after the app is ready. */
export interface TokenPersistence {
  /** False when there is no real OS keyring: refresh tokens then stay in memory only. */
  persist: boolean
  /** Why the user will have to sign in again on the next start, when that is so. */
  notice: string | null
  /** The same notice as a code the UI translates (the sentence above is English). */
  noticeCode: SessionNoticeCode | null
}

export interface ExportDialogs {
  /** Asks where to save an export; null when the user cancels. */
  chooseExportFile(defaultName: string, format: 'csv' | 'xlsx' | 'json' | 'ndjson'): Promise<string | null>
  /**
   * Browser mode only: offers a finished export to the page as a one-time download. The
   * desktop app leaves the file where the user chose it and has no such step.
   */
  offerDownload?(file: string): ExportDownload | null
  /**
   * Browser mode only, for a CSV: a download the browser receives while the export writes
   * it. The export writes into `sink` instead of `file` (which names the sidecar) and ends
   * it when complete; a cancel or failure destroys it, and the browser's download fails.
   */
  streamDownload?(file: string): StreamedDownload | null
  /**
   * Desktop only: opens a finished export with the program the system gives its type, and
   * shows it selected in the file manager. Core asks only about files it has just written.
   */
  openFile?(file: string): Promise<void>
  showInFolder?(file: string): void
}

export type { ExportDownload }

export interface StreamedDownload {
  download: ExportDownload
  sink: Writable
}

/** A demo tenant the shell can start in-process (the reference service on 127.0.0.1). */
export interface DemoTenant {
  baseUrl: string
  username: string
  password: string
  zone: string
  rateLimit: RateLimit
  callTypes: CallType[]
}
export interface DemoProvider {
  /** Starts the demo service once; later calls return the running one. */
  start(): Promise<DemoTenant>
  stop(): Promise<void>
}

export interface PlatformServices {
  paths: {
    /** Per-user data folder: account databases live here. */
    userData: string
    logs: string
  }
  /** For the token vault. `cipher.secure` is false when tokens must not be written. */
  cipher: Cipher
  tokenPersistence: TokenPersistence
  settingsStore: SettingsStore
  /** The token vault's ciphertext and backend name; a store of its own. */
  secretStore: KeyValueStore
  /** All service traffic; Electron's net.request in the app, so system proxies and CAs apply. */
  fetch: FetchLike
  clock: Clock
  logger: Logger
  dialogs: ExportDialogs
  events: EventSink
  /** Opens an http(s) URL in the user's browser; anything else is refused. */
  openExternal(url: string): Promise<void>
  /** better-sqlite3's `nativeBinding` for this runtime, when a separate build is needed. */
  nativeBinding: string | undefined
  appVersion: string
  /** Electron's version, null outside Electron. */
  electronVersion: string | null
  platform: string
  /** The OS locale, e.g. "tr-TR". */
  locale: string
  /** The OS time zone, e.g. "Europe/Istanbul". */
  systemZone: string
  darkMode(): boolean
  /** The demo service, where this build offers it. */
  demo: DemoProvider | null
  /** Applies the theme setting to native UI (and to what darkMode() reports). */
  setThemeSource(source: Settings['theme']): void
}

/** What the application controller gives back to the shell. */
export interface AppController {
  handlers: Handlers
  dispose(): Promise<void>
}
