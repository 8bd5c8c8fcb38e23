/**
 * A chart's picture (PNG) and its data (CSV), saved by the browser (or Electron's save
 * dialog): what an analyst pastes into a report. The CSV is RFC 4180 with a BOM, like the
 * call export, so Excel reads Turkish text right; a cell that a spreadsheet would run as a
 * formula is neutralized with a leading apostrophe.
 */

const FORMULA_START = /^[=+\-@\t\r]/

function csvCell(value: string | number): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  const safe = FORMULA_START.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

export function chartCsv(header: string[], rows: Array<Array<string | number>>): string {
  return `\uFEFF${[header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`
}

/** A file name from a chart title: letters (Turkish ones too), digits and dashes. */
export function chartFileName(title: string, ext: 'png' | 'csv'): string {
  const base =
    title
      .normalize('NFC')
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .toLowerCase() || 'chart'
  return `${base}.${ext}`
}

function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export function saveCsv(csv: string, name: string): void {
  saveBlob(new Blob([csv], { type: 'text/csv;charset=utf-8' }), name)
}

/** ECharts gives a data: URL; decoded here so no fetch of a data: URL is needed (the CSP allows none). */
export function savePng(dataUrl: string, name: string): void {
  const base64 = dataUrl.slice(dataUrl.indexOf(',') + 1)
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
  saveBlob(new Blob([bytes], { type: 'image/png' }), name)
}
