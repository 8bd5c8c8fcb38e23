import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ExportDownload } from '../../../src/shared/domain'
import { defaultDataDir, lockDataDir } from '../../../src/web/data-dir'
import { createDownloadStaging } from '../../../src/web/downloads'
import { browserCommand, hasDisplay } from '../../../src/web/open-browser'
import { writeRedirectFile } from '../../../src/web/redirect-file'
import { withClientScript } from '../../../src/web/static-files'
import { attachment } from '../../../src/web/server'

const made: string[] = []
const fresh = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'callsight-host-'))
  made.push(d)
  return d
}
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('exports as browser downloads', () => {
  it('stages each export in a private folder and offers it once under a random id', async () => {
    const staging = createDownloadStaging({ parent: fresh() })
    expect(statSync(staging.root).mode & 0o777).toBe(0o700)
    const file = await staging.dialogs.chooseExportFile('callsight-2026-05-06.csv', 'csv')
    expect(dirname(dirname(file ?? ''))).toBe(staging.root)
    expect(file?.endsWith('/callsight-2026-05-06.csv')).toBe(true)
    // The page never names the file: whatever it asked for, a bare, safe name with the format's extension.
    expect(await staging.dialogs.chooseExportFile('../../etc/passwd', 'xlsx')).toMatch(/\/passwd\.xlsx$/)

    writeFileSync(file!, 'a,b\n')
    const offer = staging.dialogs.offerDownload!(file!)
    expect(ExportDownload.safeParse(offer).success).toBe(true)
    expect(offer?.name).toBe('callsight-2026-05-06.csv')
    const id = offer!.url.slice('/downloads/'.length)
    const entry = staging.take(id)
    expect(entry).toEqual({ file, name: 'callsight-2026-05-06.csv' })
    expect(staging.take(id)).toBeNull()
    staging.putBack(id, entry!)
    expect(staging.take(id)).toEqual(entry)
    staging.discard(entry!)
    expect(existsSync(dirname(file!))).toBe(false)
    staging.close()
    expect(existsSync(staging.root)).toBe(false)
  })

  it('offers nothing outside its folder, and never deletes outside it', () => {
    const elsewhere = fresh()
    const outside = join(elsewhere, 'x.csv')
    writeFileSync(outside, 'x')
    const staging = createDownloadStaging({ parent: fresh() })
    expect(staging.dialogs.offerDownload!(outside)).toBeNull()
    expect(staging.dialogs.offerDownload!(join(staging.root, '..', 'x.csv'))).toBeNull()
    staging.discard({ file: outside, name: 'x.csv' })
    staging.discard({ file: join(staging.root, 'top-level.csv'), name: 'top-level.csv' })
    expect(existsSync(outside)).toBe(true)
    expect(existsSync(staging.root)).toBe(true)
    staging.close()
  })

  it('names the download for every browser', () => {
    expect(attachment('callsight-2026-05-06.csv')).toBe(
      `attachment; filename="callsight-2026-05-06.csv"; filename*=UTF-8''callsight-2026-05-06.csv`
    )
    expect(attachment('çağrı "x".csv')).toBe(`attachment; filename="_a_r_ _x_.csv"; filename*=UTF-8''%C3%A7a%C4%9Fr%C4%B1%20%22x%22.csv`)
  })
})

describe('the data folder', () => {
  it("is the desktop app's userData by default", () => {
    expect(defaultDataDir('linux', {}, '/home/ayse')).toBe('/home/ayse/.config/Callsight')
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/cfg' }, '/home/ayse')).toBe('/cfg/Callsight')
    expect(defaultDataDir('darwin', {}, '/Users/ayse')).toBe('/Users/ayse/Library/Application Support/Callsight')
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\ayse\\AppData\\Roaming' }, 'C:\\Users\\ayse')).toBe(
      join('C:\\Users\\ayse\\AppData\\Roaming', 'Callsight')
    )
  })

  it('is used by one serve at a time; a lock left by a process that is gone is taken over', () => {
    const dir = fresh()
    const lock = lockDataDir(dir)
    writeFileSync(join(dir, 'serve.lock'), String(process.ppid))
    expect(() => lockDataDir(dir)).toThrowError(
      expect.objectContaining({ code: 'Storage', message: expect.stringContaining(`process ${process.ppid}`) })
    )
    lock.release()
    // Not ours any more: release leaves it alone.
    expect(existsSync(join(dir, 'serve.lock'))).toBe(true)

    writeFileSync(join(dir, 'serve.lock'), '2147483646')
    const again = lockDataDir(dir)
    again.release()
    expect(readdirSync(dir)).toEqual([])
  })

  it('is refused while the desktop app runs on it', () => {
    const dir = fresh()
    symlinkSync(`${hostname()}-${process.ppid}`, join(dir, 'SingletonLock'))
    expect(() => lockDataDir(dir)).toThrowError(
      expect.objectContaining({ code: 'Storage', message: expect.stringContaining('desktop app') })
    )
    const gone = fresh()
    symlinkSync(`${hostname()}-2147483646`, join(gone, 'SingletonLock'))
    lockDataDir(gone).release()
  })
})

describe('opening the browser', () => {
  it('happens only where there is a display', () => {
    expect(hasDisplay('linux', {})).toBe(false)
    expect(hasDisplay('linux', { DISPLAY: ':0' })).toBe(true)
    expect(hasDisplay('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true)
    expect(hasDisplay('darwin', {})).toBe(true)
    expect(hasDisplay('win32', {})).toBe(true)
  })

  it("uses each system's opener", () => {
    const url = 'https://example.com/help?a=1&b=2'
    expect(browserCommand(url, 'linux')).toEqual({ command: 'xdg-open', args: [url] })
    expect(browserCommand(url, 'darwin')).toEqual({ command: 'open', args: [url] })
    expect(browserCommand(url, 'win32')).toEqual({ command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] })
  })

  it('gives Windows no command line a shell would split: a hostile link stays one URL', () => {
    const hostile = 'https://example.com/"&calc.exe&"'
    const cmd = browserCommand(hostile, 'win32')
    // No cmd.exe reads it (its & | < > ^ % " are never interpreted), and no quote is left to close an argument.
    expect(cmd?.command).toBe('rundll32')
    expect(cmd?.args).toEqual(['url.dll,FileProtocolHandler', 'https://example.com/%22&calc.exe&%22'])
    expect(cmd?.args.join(' ')).not.toContain('"')
    for (const platform of ['win32', 'linux', 'darwin']) {
      expect(browserCommand('https://example.com/a b"c', platform)?.args.at(-1)).toBe('https://example.com/a%20b%22c')
      expect(browserCommand('not a url', platform)).toBeNull()
    }
  })

  it('hands the opener a private redirect file, never the launch key', () => {
    const key = 'k'.repeat(43)
    const launch = `http://127.0.0.1:5/?key=${key}`
    const redirect = writeRedirectFile(launch, fresh())
    try {
      expect(statSync(redirect.file).mode & 0o777).toBe(0o600)
      expect(statSync(dirname(redirect.file)).mode & 0o777).toBe(0o700)
      expect(readFileSync(redirect.file, 'utf8')).toContain(`<meta http-equiv="refresh" content="0; url=${launch}">`)
      for (const platform of ['linux', 'darwin', 'win32']) {
        const cmd = browserCommand(redirect.url, platform)
        expect(cmd?.args.at(-1)).toMatch(/^file:\/\/\/.*open-callsight\.html$/)
        expect(JSON.stringify(cmd)).not.toContain(key)
      }
    } finally {
      redirect.remove()
    }
    expect(existsSync(dirname(redirect.file))).toBe(false)
    expect(() => writeRedirectFile('file:///etc/passwd', fresh())).toThrow()
  })
})

describe("the renderer's index.html in a tab", () => {
  it('loads the client script before the renderer module', () => {
    const html =
      '<html><head><meta charset="UTF-8" />\n    <script type="module" crossorigin src="./assets/index-x.js"></script>\n</head><body></body></html>'
    const out = withClientScript(html)
    expect(out.indexOf('<script src="/callsight-api.js"></script>')).toBeLessThan(out.indexOf('type="module"'))
    expect(withClientScript('<html><head></head></html>')).toBe('<html><head><script src="/callsight-api.js"></script>\n</head></html>')
    expect(() => withClientScript('<p>no head</p>')).toThrow()
  })
})
