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

/** The system's "open this URL" command. */
export function browserCommand(url: string, platform: string = process.platform): { command: string; args: string[]; verbatim: boolean } {
  if (platform === 'darwin') return { command: 'open', args: [url], verbatim: false }
  // `start` is a cmd built-in; its first quoted argument is a window title, hence the "".
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', `"${url}"`], verbatim: true }
  return { command: 'xdg-open', args: [url], verbatim: false }
}

/**
 * Opens http(s) URLs in the user's browser and resolves whether the opener could be started.
 * The opener is not waited for: some stay until the browser closes.
 */
export function openInBrowser(url: string, platform: string = process.platform): Promise<boolean> {
  const protocol = new URL(url).protocol
  if (protocol !== 'http:' && protocol !== 'https:') return Promise.resolve(false)
  const { command, args, verbatim } = browserCommand(url, platform)
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsVerbatimArguments: verbatim })
    child.once('error', () => resolve(false))
    child.once('spawn', () => {
      child.unref()
      resolve(true)
    })
  })
}
