/**
 * The renderer never navigates and never opens windows. A link to an http(s) page is
 * handed to the user's browser, after a check; every other scheme (file:, javascript:,
 * custom protocol handlers, …) is dropped, because shell.openExternal on them can run code.
 */

const MAX_URL_LENGTH = 4096

/** The URL to open in the user's browser, or null when it must not be opened. */
export function safeExternalUrl(raw: string): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH) return null
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null
  // user:pass@host hides the real host from a reader of the link.
  if (url.username !== '' || url.password !== '') return null
  if (url.hostname === '') return null
  return url.href
}

export interface NavigationDecision {
  /** Always false: the window stays on the app. */
  allow: false
  /** Opened in the user's browser instead, when safe. */
  openExternal: string | null
}

export function decideNavigation(url: string): NavigationDecision {
  return { allow: false, openExternal: safeExternalUrl(url) }
}

/** The shape setWindowOpenHandler expects: new windows are always denied. */
export function decideWindowOpen(url: string): { action: 'deny'; openExternal: string | null } {
  return { action: 'deny', openExternal: safeExternalUrl(url) }
}
