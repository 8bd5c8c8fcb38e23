import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Settings } from '../../src/shared/domain'
import type { EventName } from '../../src/shared/ipc/names'
import type { EventPayload } from '../../src/shared/ipc/contract'
import { createAppController } from '../../src/core/app/controller'
import type { AppController, EventSink, PlatformServices, SettingsStore } from '../../src/core/app/host-ports'
import { createAesGcmCipher } from '../../src/core/crypto/aes-cipher'
import type { Cipher, Clock, Logger } from '../../src/core/platform'
import { JsonFileStore } from '../../src/core/platform/json-file-store'
import { silentLogger, systemClock } from '../../src/core/platform/node'
import { createDemoProvider } from '../../src/host/demo'
import type { ServiceOptions } from '../../src/reference-service'

/**
 * The real application controller on a plain-Node platform: real files in a temp userData,
 * a real AES-256-GCM cipher, global fetch, and the reference service as the demo. Used by the
 * controller's integration tests.
 */
export interface RecordedEvent {
  event: EventName
  payload: unknown
}

export interface TestApp {
  controller: AppController
  platform: PlatformServices
  userData: string
  events: RecordedEvent[]
  /** Where the fake save dialog puts exports, and the next name it answers (null = cancel). */
  exportDir: string
  nextExportFile: { value: string | null | undefined }
  opened: string[]
  /** Finished exports the app opened or showed in their folder (desktop file actions). */
  revealed: Array<{ how: 'open' | 'folder'; file: string }>
  close(): Promise<void>
}

class NodeSettingsStore implements SettingsStore {
  private readonly store: JsonFileStore
  constructor(file: string) {
    this.store = new JsonFileStore(file)
  }
  get(): Settings {
    const parsed = Settings.safeParse(this.store.get('settings') ?? {})
    return parsed.success ? parsed.data : Settings.parse({})
  }
  set(next: Settings): Settings {
    const valid = Settings.parse(next)
    this.store.set('settings', valid)
    return valid
  }
}

export interface TestAppOptions {
  userData?: string
  /** Options for the demo tenant (the reference service). */
  demo?: ServiceOptions
  /** Extra sinks, to watch events as they happen. */
  sink?: EventSink
  persistTokens?: boolean
  /** The cipher's key; pass the same one to a second app on the same userData (a restart). */
  cipherKey?: Buffer
  systemZone?: string
  locale?: string
  /** Where the app logs (default: nowhere). */
  logger?: Logger
  /** The app's clock (default: the system's); a ManualClock drives the team pull schedule. */
  clock?: Clock
}

function insecureCipher(inner: Cipher): Cipher {
  return { backend: 'basic_text', secure: false, encrypt: (p) => inner.encrypt(p), decrypt: (d) => inner.decrypt(d) }
}

export function createTestApp(opts: TestAppOptions = {}): TestApp {
  const userData = opts.userData ?? mkdtempSync(join(tmpdir(), 'callsight-app-'))
  const exportDir = join(userData, 'exports')
  mkdirSync(exportDir, { recursive: true })
  const events: RecordedEvent[] = []
  const nextExportFile: { value: string | null | undefined } = { value: undefined }
  const opened: string[] = []
  const revealed: Array<{ how: 'open' | 'folder'; file: string }> = []
  const persist = opts.persistTokens ?? true
  const sink: EventSink = {
    emit<E extends EventName>(event: E, payload: EventPayload<E>) {
      events.push({ event, payload })
      opts.sink?.emit(event, payload)
    }
  }
  const platform: PlatformServices = {
    paths: { userData, logs: join(userData, 'logs') },
    // Without a secure key store the shell's cipher reports itself insecure (Electron's
    // basic_text backend): the vault then keeps tokens in memory only.
    cipher: persist ? createAesGcmCipher(opts.cipherKey ?? randomBytes(32)) : insecureCipher(createAesGcmCipher(randomBytes(32))),
    tokenPersistence: persist
      ? { persist: true, notice: null, noticeCode: null }
      : { persist: false, notice: 'This computer has no secure key store, so you will sign in again next time.', noticeCode: 'noKeyring' },
    settingsStore: new NodeSettingsStore(join(userData, 'config.json')),
    secretStore: new JsonFileStore(join(userData, 'secrets.json')),
    fetch: (input, init) => fetch(input, init),
    clock: opts.clock ?? systemClock,
    logger: opts.logger ?? silentLogger,
    dialogs: {
      async chooseExportFile(defaultName) {
        const answer = nextExportFile.value
        nextExportFile.value = undefined
        if (answer === null) return null
        return join(exportDir, answer ?? defaultName)
      },
      // The desktop shell's file actions, recorded (src/main implements them with Electron's shell).
      async openFile(file) {
        revealed.push({ how: 'open', file })
      },
      showInFolder(file) {
        revealed.push({ how: 'folder', file })
      }
    },
    events: sink,
    async openExternal(url) {
      opened.push(url)
    },
    nativeBinding: undefined,
    appVersion: '0.1.0-test',
    electronVersion: null,
    platform: process.platform,
    locale: opts.locale ?? 'en-US',
    systemZone: opts.systemZone ?? 'Europe/Istanbul',
    darkMode: () => false,
    setThemeSource: () => undefined,
    demo: createDemoProvider({ options: { calls: 3_000, rateLimit: { requests: 6000, perSeconds: 60 }, ...opts.demo } })
  }
  const controller = createAppController(platform)
  return {
    controller,
    platform,
    userData,
    events,
    exportDir,
    nextExportFile,
    opened,
    revealed,
    async close() {
      await controller.dispose()
      if (!opts.userData) rmSync(userData, { recursive: true, force: true })
    }
  }
}
