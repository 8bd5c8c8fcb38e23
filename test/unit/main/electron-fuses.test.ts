import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

/**
 * The fuses in electron-builder.yml, checked through the code that applies them: the config is
 * loaded and validated by electron-builder's own loader and schema (app-builder-lib), turned
 * into a fuse config by its packager, and written by @electron/fuses into a stand-in binary
 * that carries Electron's fuse sentinel (the real binary cannot be downloaded here). What is
 * read back from that binary is what a packaged Callsight would have.
 */
const require = createRequire(import.meta.url)
const root = join(import.meta.dirname, '..', '..', '..')

interface FuseLib {
  FuseV1Options: Record<string, number>
  getCurrentFuseWire(path: string): Promise<Record<number, number>>
  flipFuses(path: string, config: Record<string, unknown>): Promise<number>
}

const builder = require('app-builder-lib') as {
  PlatformPackager: { prototype: { generateFuseConfig(fuses: unknown): Promise<Record<string, unknown>> } }
}
const configLoader = require('app-builder-lib/out/util/config/config') as {
  getConfig(
    dir: string,
    file: string,
    options: null
  ): Promise<Record<string, unknown> & { electronFuses?: Record<string, boolean>; asar?: unknown }>
  validateConfiguration(config: unknown, logger: unknown): Promise<void>
}
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown }
const fuses = require('@electron/fuses') as FuseLib
const { FuseState, SENTINEL } = require('@electron/fuses/dist/constants') as { FuseState: Record<string, number>; SENTINEL: string }

let dir = ''
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = ''
})

/** A file shaped like the fuse region of an Electron binary: sentinel, wire version 1, eight fuses, all inherited. */
function standInBinary(): string {
  dir = mkdtempSync(join(tmpdir(), 'callsight-fuses-'))
  const file = join(dir, 'callsight')
  const wire = Buffer.alloc(8, FuseState.INHERIT)
  writeFileSync(
    file,
    Buffer.concat([Buffer.from('\x7fELF padding '), Buffer.from(SENTINEL), Buffer.from([1, 8]), wire, Buffer.from(' more bytes')])
  )
  return file
}

describe('Electron fuses in electron-builder.yml', () => {
  it('is a configuration electron-builder accepts', async () => {
    const config = await configLoader.getConfig(root, 'electron-builder.yml', null)
    await configLoader.validateConfiguration(config, new DebugLogger(false))
    // The asar-only fuses need an asar archive with its integrity hash: neither may be turned off.
    expect(config.asar === undefined || config.asar === true || (typeof config.asar === 'object' && config.asar !== null)).toBe(true)
    expect((config.asar as { disableIntegrity?: boolean } | undefined)?.disableIntegrity).not.toBe(true)
  })

  it('flips RunAsNode, NODE_OPTIONS and --inspect off, cookie encryption, asar integrity and asar-only on', async () => {
    const config = await configLoader.getConfig(root, 'electron-builder.yml', null)
    const fuseConfig = await builder.PlatformPackager.prototype.generateFuseConfig.call({}, config.electronFuses)
    const file = standInBinary()
    await fuses.flipFuses(file, fuseConfig)
    const wire = await fuses.getCurrentFuseWire(file)
    const O = fuses.FuseV1Options
    const state = (option: number): string =>
      wire[option] === FuseState.ENABLE ? 'on' : wire[option] === FuseState.DISABLE ? 'off' : 'inherit'
    expect({
      runAsNode: state(O.RunAsNode!),
      nodeOptions: state(O.EnableNodeOptionsEnvironmentVariable!),
      inspect: state(O.EnableNodeCliInspectArguments!),
      cookieEncryption: state(O.EnableCookieEncryption!),
      asarIntegrity: state(O.EnableEmbeddedAsarIntegrityValidation!),
      onlyLoadFromAsar: state(O.OnlyLoadAppFromAsar!)
    }).toEqual({
      runAsNode: 'off',
      nodeOptions: 'off',
      inspect: 'off',
      cookieEncryption: 'on',
      asarIntegrity: 'on',
      onlyLoadFromAsar: 'on'
    })
    // The file:// privileges fuse stays as Electron ships it: the app loads its page from file://.
    expect(state(O.GrantFileProtocolExtraPrivileges!)).toBe('inherit')
    expect(readFileSync(file).includes(Buffer.from(SENTINEL))).toBe(true)
  })
})
