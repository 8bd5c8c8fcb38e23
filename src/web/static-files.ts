import { createReadStream, existsSync, readFileSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { extname, join, normalize, resolve, sep } from 'node:path'

export const CLIENT_SCRIPT_PATH = '/callsight-api.js'
export const EXCHANGE_SCRIPT_PATH = '/callsight-exchange.js'

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  // Exports, sent as downloads.
  '.csv': 'text/csv; charset=utf-8',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ndjson': 'application/x-ndjson'
}

export const contentTypeOf = (file: string): string => CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'

/**
 * The built renderer (out/renderer), read-only. Its index.html gets one classic script
 * before the renderer's module: /callsight-api.js, which installs window.api (the tab has no
 * preload). Everything else is sent as built.
 */
export interface RendererFiles {
  /** index.html with the client script, ready to send. */
  readonly indexHtml: Buffer
  /** An existing file under the root for a URL path, or null. */
  resolve(pathname: string): Promise<{ file: string; size: number } | null>
}

export function openRendererFiles(rootDir: string): RendererFiles {
  const root = resolve(rootDir)
  const indexFile = join(root, 'index.html')
  if (!existsSync(indexFile)) throw new Error(`${indexFile} is missing`)
  const indexHtml = Buffer.from(withClientScript(readFileSync(indexFile, 'utf8')))

  return {
    indexHtml,
    async resolve(pathname) {
      let rel: string
      try {
        rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '')
      } catch {
        return null
      }
      const file = join(root, rel)
      if (file !== root && !file.startsWith(root + sep)) return null
      const info = await stat(file).catch(() => null)
      return info?.isFile() ? { file, size: info.size } : null
    }
  }
}

/** Puts the client script before the first script of the page (the renderer's module). */
export function withClientScript(html: string): string {
  const tag = `<script src="${CLIENT_SCRIPT_PATH}"></script>`
  const at = html.search(/<script\b/i)
  if (at >= 0) return `${html.slice(0, at)}${tag}\n    ${html.slice(at)}`
  const head = html.search(/<\/head>/i)
  if (head < 0) throw new Error('The renderer index.html has neither a script nor a </head>')
  return `${html.slice(0, head)}${tag}\n${html.slice(head)}`
}

export function sendFile(res: ServerResponse, file: { file: string; size: number }, headers: Record<string, string>, head: boolean): void {
  res.writeHead(200, { ...headers, 'Content-Type': contentTypeOf(file.file), 'Content-Length': String(file.size) })
  if (head) return void res.end()
  const stream = createReadStream(file.file)
  stream.on('error', () => res.destroy())
  stream.pipe(res)
}
