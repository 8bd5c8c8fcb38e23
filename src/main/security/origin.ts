import { fileURLToPath } from 'node:url'
import { normalize } from 'node:path'

export interface RendererLocation {
  /** The dev server's URL (ELECTRON_RENDERER_URL) in development, else undefined. */
  devServerUrl?: string | undefined
  /** Absolute path of the packaged renderer's index.html. */
  rendererIndex: string
  platform?: NodeJS.Platform
}

/**
 * Whether a frame URL is the app's own renderer: the dev server's origin in development,
 * else exactly the packaged index.html (any query or hash). Other file:// pages are not
 * trusted: a file the user opened must never reach IPC.
 */
export function createOriginCheck(loc: RendererLocation): (url: string) => boolean {
  const platform = loc.platform ?? process.platform
  if (loc.devServerUrl) {
    const devOrigin = new URL(loc.devServerUrl).origin
    return (url) => parse(url)?.origin === devOrigin
  }
  const fold = (p: string): string => (platform === 'win32' ? normalize(p).toLowerCase() : normalize(p))
  const expected = fold(loc.rendererIndex)
  return (url) => {
    const u = parse(url)
    if (!u || u.protocol !== 'file:' || (u.host !== '' && u.host !== 'localhost')) return false
    u.search = ''
    u.hash = ''
    try {
      return fold(fileURLToPath(u)) === expected
    } catch {
      return false
    }
  }
}

function parse(url: string): URL | null {
  try {
    return new URL(url)
  } catch {
    return null
  }
}
