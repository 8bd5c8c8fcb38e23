import { existsSync } from 'node:fs'
import { join } from 'node:path'

export interface NativeBindingFacts {
  /** process.versions.modules of the running Electron. */
  abi: string
  packaged: boolean
  /** process.resourcesPath when packaged. */
  resourcesPath: string
  /** The repository root in development. */
  appRoot: string
  exists?: (path: string) => boolean
}

/**
 * better-sqlite3 built for Electron's ABI lives beside the Node build that tests use, as
 * native/electron-<abi>/better_sqlite3.node (made by `npm run native:electron`; shipped in
 * resources/ when packaged). Pass the result to better-sqlite3's `nativeBinding` option.
 */
export function nativeBindingPath(facts: NativeBindingFacts): string | undefined {
  const base = facts.packaged ? facts.resourcesPath : facts.appRoot
  const file = join(base, 'native', `electron-${facts.abi}`, 'better_sqlite3.node')
  return (facts.exists ?? existsSync)(file) ? file : undefined
}

/** In the running app: the Electron-ABI build, or undefined to use better-sqlite3's own. */
export function resolveNativeBinding(): string | undefined {
  return nativeBindingPath({
    abi: process.versions.modules,
    // Electron sets defaultApp when started as `electron .` (development), never when packaged.
    packaged: !process.defaultApp,
    // Undefined outside Electron (the main bundle smoke-tested under Node).
    resourcesPath: (process.resourcesPath as string | undefined) ?? '',
    // out/main/index.js → the repository root.
    appRoot: join(__dirname, '..', '..')
  })
}
