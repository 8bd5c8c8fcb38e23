import type { Logger } from '../../core/platform'
import { withCsp, type HeaderMap } from '../../host/csp'
import { decideNavigation, decideWindowOpen } from './navigation'
import { permissionAllowed } from './permissions'

interface Preventable {
  preventDefault(): void
}

/** The webContents calls hardening needs; Electron's WebContents fits, and so do test fakes. */
export interface WebContentsLike {
  on(event: 'will-navigate', listener: (event: Preventable, url: string) => void): unknown
  on(event: 'will-attach-webview', listener: (event: Preventable) => void): unknown
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void
}

export type OpenExternal = (url: string) => Promise<void>

/**
 * Every webContents the app creates: no navigation away from the app, no new windows, no
 * webviews. http(s) links go to the user's browser after safeExternalUrl's check.
 */
export function hardenWebContents(contents: WebContentsLike, openExternal: OpenExternal, logger?: Logger): void {
  const openOutside = (url: string | null, attempted: string): void => {
    if (url === null) {
      logger?.log('warn', 'Blocked a link that is not http(s)', { scheme: schemeOf(attempted) })
      return
    }
    openExternal(url).catch((e: unknown) => logger?.log('warn', 'Could not open a link externally', { error: e }))
  }
  contents.on('will-navigate', (event, url) => {
    event.preventDefault()
    openOutside(decideNavigation(url).openExternal, url)
  })
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url)
    openOutside(decision.openExternal, url)
    return { action: decision.action }
  })
  contents.on('will-attach-webview', (event) => {
    event.preventDefault()
    logger?.log('warn', 'Blocked a webview')
  })
}

/** The session calls hardening needs; Electron's Session fits. */
export interface SessionLike {
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { responseHeaders?: Record<string, string[]> },
        callback: (response: { responseHeaders?: HeaderMap }) => void
      ) => void
    ): void
  }
  setPermissionRequestHandler(
    handler: (
      webContents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
      details: { requestingUrl?: string; isMainFrame?: boolean }
    ) => void
  ): void
  setPermissionCheckHandler(
    handler: (
      webContents: unknown,
      permission: string,
      requestingOrigin: string,
      details: { requestingUrl?: string; isMainFrame: boolean }
    ) => boolean
  ): void
}

/**
 * The CSP on every response (the dev server's pages included; file:// has no headers and
 * relies on the identical <meta>), and every permission denied but a sanitized clipboard
 * write from the app itself.
 */
export function hardenSession(session: SessionLike, isTrustedOrigin: (url: string) => boolean, logger?: Logger): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCsp(details.responseHeaders) })
  })
  session.setPermissionRequestHandler((_wc, permission, callback, details) => {
    const granted = details.isMainFrame !== false && permissionAllowed(permission, details.requestingUrl ?? '', isTrustedOrigin)
    if (!granted) logger?.log('info', 'Denied a permission request', { permission })
    callback(granted)
  })
  session.setPermissionCheckHandler(
    (_wc, permission, requestingOrigin, details) =>
      // The trusted check wants the page's URL (for file:// the origin alone says nothing).
      details.isMainFrame && permissionAllowed(permission, details.requestingUrl ?? requestingOrigin, isTrustedOrigin)
  )
}

function schemeOf(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(url)
  return m?.[1]?.toLowerCase() ?? '(none)'
}
