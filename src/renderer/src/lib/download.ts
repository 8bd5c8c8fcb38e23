import type { ExportDownload } from '../../../shared/domain'

/**
 * Browser mode: hands a finished export to the browser, which saves it with the user's
 * downloads. The URL is same-origin and served once by `callsight serve`; the contract only
 * lets /downloads/<id> through, so the page cannot be pointed anywhere else.
 */
export function saveDownload(download: ExportDownload): void {
  const link = document.createElement('a')
  link.href = download.url
  link.download = download.name
  link.rel = 'noopener'
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
}
