import type { Refusal } from './gate'

/**
 * The page a bare or spent address gets instead of an empty 403: the address printed first
 * is single-use, and a newcomer who opens the plain one (or a bookmark) needs to be told how
 * to get in. It holds no secret (no key, no token, no cookie), no script and none of the app;
 * its policy loads nothing. Only a typed address or a bookmark earns it (a top-level GET of
 * the start page that failed for want of a key or session); anything a foreign page or a
 * rebound name could send is still refused without a body.
 */
const HELPED: ReadonlySet<Refusal> = new Set(['cookie', 'key', 'key-used', 'key-expired'])

export const HELP_PAGE_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

export function wantsHelpPage(reason: Refusal, method: string | undefined, url: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false
  const path = (url ?? '').split('?')[0]
  return HELPED.has(reason) && (path === '/' || path === '/index.html')
}

export function helpPage(acceptLanguage: string | undefined): Buffer {
  const turkishFirst = /^\s*tr\b/i.test(acceptLanguage ?? '')
  const en = `<section lang="en">
<h1>Callsight is running, but this address has no key</h1>
<p>Each address Callsight prints opens the app once, so that no other program or web page can use it.</p>
<p>To get in: go to the terminal where <code>npm start</code> or <code>callsight serve</code> runs and <strong>press Enter</strong>.
It prints a new address (<code>http://127.0.0.1:…/?key=…</code>); open that one. The tab you opened it in keeps working until the server stops.</p>
</section>`
  const tr = `<section lang="tr">
<h1>Callsight çalışıyor, ancak bu adreste anahtar yok</h1>
<p>Callsight'ın yazdığı her adres uygulamayı bir kez açar; böylece başka bir program ya da web sayfası onu kullanamaz.</p>
<p>Girmek için: <code>npm start</code> ya da <code>callsight serve</code> komutunun çalıştığı terminale gidip <strong>Enter'a basın</strong>.
Yeni bir adres yazar (<code>http://127.0.0.1:…/?key=…</code>); onu açın. Açtığınız sekme sunucu durana kadar çalışır.</p>
</section>`
  const body = turkishFirst ? `${tr}\n<hr>\n${en}` : `${en}\n<hr>\n${tr}`
  return Buffer.from(
    `<!doctype html>\n<html lang="${turkishFirst ? 'tr' : 'en'}"><head><meta charset="utf-8"><title>Callsight</title></head><body>\n${body}\n</body></html>\n`
  )
}
