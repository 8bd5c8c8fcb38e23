import { readFileSync, readlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { homedir, hostname } from 'node:os'
import { join } from 'node:path'
import { CallsightError } from '../core/errors'
import { PRIVATE_FILE_MODE, tightenDataDir } from '../core/platform/private-files'

/** Electron names userData after package.json's productName. */
export const PRODUCT_NAME = 'Callsight'

/**
 * The desktop app's userData folder (Electron's appData + productName), so that both modes see
 * the same accounts, settings and caches: ~/.config/Callsight on Linux (or $XDG_CONFIG_HOME),
 * ~/Library/Application Support/Callsight on macOS, %APPDATA%\Callsight on Windows.
 */
export function defaultDataDir(
  platform: string = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir()
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME)
  if (platform === 'win32') return join(env['APPDATA'] || join(home, 'AppData', 'Roaming'), PRODUCT_NAME)
  return join(env['XDG_CONFIG_HOME'] || join(home, '.config'), PRODUCT_NAME)
}

export interface DataDirLock {
  release(): void
}

const LOCK_FILE = 'serve.lock'
// Chromium's process-singleton lock on Linux and macOS: a symlink to "<hostname>-<pid>".
const DESKTOP_LOCK = 'SingletonLock'

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * One process per data folder, as the desktop app's single-instance lock ensures for itself:
 * two writers on one SQLite cache and one settings file undo each other's work. Refuses when
 * the desktop app or another `callsight serve` holds the folder; a lock left by a process that
 * is gone is taken over.
 */
export function lockDataDir(dir: string): DataDirLock {
  // Created 0700, or tightened (with its accounts, logs and settings) when an older version
  // left it readable to other users.
  tightenDataDir(dir)
  const desktop = desktopHolder(dir)
  if (desktop !== null) {
    throw new CallsightError('Storage', `The Callsight desktop app (process ${desktop}) is using ${dir}.`, {
      hint: 'Close it first, or give `callsight serve` another folder with --data-dir.'
    })
  }

  const file = join(dir, LOCK_FILE)
  const mine = String(process.pid)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, mine, { flag: 'wx', mode: PRIVATE_FILE_MODE })
      return {
        release() {
          try {
            if (readFileSync(file, 'utf8') === mine) unlinkSync(file)
          } catch {
            // Already gone.
          }
        }
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      const holder = Number.parseInt(readFileSync(file, 'utf8'), 10)
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new CallsightError('Storage', `Another \`callsight serve\` (process ${holder}) is using ${dir}.`, {
          hint: 'Use the browser tab it opened, stop it, or give this one another folder with --data-dir.'
        })
      }
      unlinkSync(file)
    }
  }
  throw new CallsightError('Storage', `Could not lock ${dir}.`, { hint: 'Try again; another program keeps changing it.' })
}

/** The desktop app's process id when it runs on this folder, else null. */
function desktopHolder(dir: string): number | null {
  let target: string
  try {
    target = readlinkSync(join(dir, DESKTOP_LOCK))
  } catch {
    return null
  }
  const dash = target.lastIndexOf('-')
  const pid = Number.parseInt(target.slice(dash + 1), 10)
  if (target.slice(0, dash) !== hostname() || !Number.isInteger(pid)) return null
  return alive(pid) ? pid : null
}
