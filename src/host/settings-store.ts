import { existsSync, readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { Settings } from '../shared/domain'
import { CallsightError } from '../core/errors'
import type { Logger } from '../core/platform'
import { makePrivateDir } from '../core/platform/private-files'
import type { SettingsStore } from '../core/app/host-ports'
import { issuesToFields } from './ipc/router'
import type { JsonFile } from './json-file'

export const SETTINGS_FILE = 'settings'

export interface OpenedSettingsStore extends SettingsStore {
  /** Where an unreadable settings file was moved at start, if one was. */
  readonly backupPath: string | null
}

export interface SettingsStoreOptions {
  /** userData. */
  cwd: string
  logger?: Logger
  now?: () => number
  /**
   * Opens <cwd>/<name>.json. The desktop app passes electron-store, the browser shell conf
   * (the library electron-store is built on): both read and write the same file format.
   */
  open: (cwd: string, name: string) => JsonFile
}

/**
 * Settings in electron-store's JSON file, validated by the Settings schema. A file that is not JSON
 * or does not fit the schema (hand-edited, written by a newer version, half-written by a
 * crash before atomic writes) is moved aside as settings.invalid-<time>.json and the app
 * starts from defaults: it never refuses to start over settings, and never silently
 * destroys what the user had.
 */
export function openSettingsStore(opts: SettingsStoreOptions): OpenedSettingsStore {
  const now = opts.now ?? Date.now
  const file = join(opts.cwd, `${SETTINGS_FILE}.json`)
  // The JSON library would create a missing data folder with the umask's 0755.
  makePrivateDir(opts.cwd)
  const backupPath = quarantineInvalid(file, now, opts.logger)
  const store = opts.open(opts.cwd, SETTINGS_FILE)

  let current: Settings
  const initial = Settings.safeParse(store.read())
  if (initial.success) current = initial.data
  else {
    // The file changed between the check and the open; still never crash.
    opts.logger?.log('warn', 'Settings became invalid while opening; using defaults', { issues: initial.error.issues.length })
    current = Settings.parse({})
  }

  return {
    backupPath,
    get: () => structuredClone(current),
    set(next: Settings): Settings {
      const parsed = Settings.safeParse(next)
      if (!parsed.success) {
        throw new CallsightError('InvalidInput', 'These settings are not valid.', { fields: issuesToFields(parsed.error.issues) })
      }
      try {
        store.write(parsed.data as unknown as Record<string, unknown>)
      } catch (cause) {
        throw new CallsightError('Storage', 'The settings could not be saved.', { cause, hint: 'Check that the disk is not full.' })
      }
      current = parsed.data
      return structuredClone(current)
    }
  }
}

/** Moves an unusable settings file aside; returns the backup's path, or null if none was needed. */
export function quarantineInvalid(file: string, now: () => number, logger?: Logger): string | null {
  if (!existsSync(file)) return null
  let problem: string | null = null
  try {
    const parsed = Settings.safeParse(JSON.parse(readFileSync(file, 'utf8')))
    if (!parsed.success) problem = `does not fit the schema (${parsed.error.issues.length} issues)`
  } catch {
    problem = 'is not valid JSON'
  }
  if (problem === null) return null
  const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-')
  const backup = file.replace(/\.json$/, `.invalid-${stamp}.json`)
  renameSync(file, backup)
  logger?.log('warn', `The settings file ${problem}; kept a backup and started from defaults`, { backup })
  return backup
}
