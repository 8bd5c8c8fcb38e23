/**
 * Permission requests are denied, with one exception: writing text to the clipboard from
 * the app's own main frame (the "copy callId" button). The sanitized write cannot read
 * anything back.
 */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write'])

export function permissionAllowed(permission: string, requestingUrl: string, isTrustedOrigin: (url: string) => boolean): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isTrustedOrigin(requestingUrl)
}
