import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * The keyed address, handed to the browser opener without putting it in the opener's argv:
 * every user of the machine can read a process's command line (/proc/<pid>/cmdline), and the
 * key in it would buy the session. As Jupyter does, the opener gets a local HTML file that
 * moves on to the address; the file is readable by its owner only (0600) in a folder only the
 * owner can enter (0700), and is removed once the key is spent or serve stops.
 */
export interface RedirectFile {
  /** The file's path. */
  readonly file: string
  /** The file:// URL to open: no key in it. */
  readonly url: string
  remove(): void
}

export function writeRedirectFile(target: string, parent: string = tmpdir()): RedirectFile {
  const address = new URL(target)
  if (address.protocol !== 'http:') throw new Error('The redirect file leads to the local http server only')
  const dir = mkdtempSync(join(parent, 'callsight-open-'))
  chmodSync(dir, 0o700)
  const file = join(dir, 'open-callsight.html')
  const href = escapeAttribute(address.href)
  // 'wx': never through a file or link someone put there first.
  writeFileSync(
    file,
    `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${href}"><title>Callsight</title>\n` +
      `<p><a href="${href}">Open Callsight</a></p>\n`,
    { mode: 0o600, flag: 'wx' }
  )
  chmodSync(file, 0o600)
  return { file, url: pathToFileURL(file).href, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

const escapeAttribute = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
