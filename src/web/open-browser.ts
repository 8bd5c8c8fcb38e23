import { spawn } from 'node:child_process'

/**
 * Whether a browser can be shown here. macOS and Windows always have a desktop; elsewhere
 * (Linux, the BSDs) a graphical session sets DISPLAY or WAYLAND_DISPLAY. Without one (a server,
 * a container, SSH) the URL is printed and nothing is opened.
 */
export function hasDisplay(platform: string = process.platform, env: NodeJS.ProcessEnv = process.env): boolean {
  if (platform === 'darwin' || platform === 'win32') return true
  return Boolean(env['DISPLAY'] || env['WAYLAND_DISPLAY'])
}

/**
 * The system's "open this URL" command, or null for a URL it must not be given. The URL goes
 * as one argument, normalized by the URL parser (which percent-encodes quotes, spaces and
 * control characters), and no shell reads it: on Windows not `cmd /c start`, whose parser
 * treats & | < > ^ % " as its own, but rundll32's FileProtocolHandler, which takes the rest of
 * its command line as the URL. Whatever still holds a quote or white space is refused.
 */
export function browserCommand(url: string, platform: string = process.platform): { command: string; args: string[] } | null {
  let href: string
  try {
    href = new URL(url).href
  } catch {
    return null
  }
  if (/["\s\u0000-\u001f\u007f]/.test(href)) return null
  if (platform === 'darwin') return { command: 'open', args: [href] }
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', href] }
  return { command: 'xdg-open', args: [href] }
}

/**
 * Opens http(s) URLs in the user's browser and resolves whether the opener could be started.
 * The opener is not waited for: some stay until the browser closes.
 */
export function openInBrowser(url: string, platform: string = process.platform): Promise<boolean> {
  return openWith(url, ['http:', 'https:'], platform)
}

/** Opens a local file (serve's redirect file) in the user's browser. */
export function openFileInBrowser(fileUrl: string, platform: string = process.platform): Promise<boolean> {
  return openWith(fileUrl, ['file:'], platform)
}

function openWith(url: string, protocols: string[], platform: string): Promise<boolean> {
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    return Promise.resolve(false)
  }
  const cmd = protocols.includes(protocol) ? browserCommand(url, platform) : null
  if (cmd === null) return Promise.resolve(false)
  return new Promise((resolve) => {
    const child = spawn(cmd.command, cmd.args, { stdio: 'ignore', detached: true })
    child.once('error', () => resolve(false))
    child.once('spawn', () => {
      child.unref()
      resolve(true)
    })
  })
}
