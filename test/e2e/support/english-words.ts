import type { Page } from 'playwright-core'
import { en, type MessageTree } from '../../../src/renderer/src/i18n/en'
import { tr } from '../../../src/renderer/src/i18n/tr'

/**
 * What a Turkish screen must not show: any word of the English UI. The vocabulary is every
 * word of the English message file and of PrimeVue's English defaults that the Turkish file
 * does not use too, so a hard-coded English label, a message missing from tr.ts or a
 * PrimeVue string left in English all show up, while names both languages share (Demo,
 * CSV) do not.
 */

const PRIMEVUE_EN = [
  'January February March April May June July August September October November December',
  'Sunday Monday Tuesday Wednesday Thursday Friday Saturday Sun Mon Tue Wed Thu Fri Sat',
  'Today Clear Apply Cancel Choose Year Month Date Previous Next Decade No results found available options items selected',
  'Starts with Contains Equals Filter Match All Any Yes Upload Completed Pending Weak Medium Strong'
].join(' ')

function leaves(tree: MessageTree): string[] {
  return Object.values(tree).flatMap((v) => (typeof v === 'string' ? [v] : leaves(v)))
}

/** Words of three letters or more: two-letter ones (Sa, Su, Mo) are too often words of both languages. */
const wordsOf = (text: string): string[] => (text.replace(/\{\w+\}/g, ' ').match(/\p{L}{3,}/gu) ?? []).map((w) => w.toLocaleLowerCase('en'))

/** Turkish words Intl writes (month and day names, "Per" for Perşembe) are Turkish whatever they spell in English. */
function intlTurkish(): string[] {
  const names: string[] = []
  for (const style of ['long', 'short'] as const) {
    const days = new Intl.DateTimeFormat('tr-TR', { weekday: style, timeZone: 'UTC' })
    const months = new Intl.DateTimeFormat('tr-TR', { month: style, timeZone: 'UTC' })
    for (let i = 0; i < 7; i++) names.push(days.format(new Date(Date.UTC(2023, 0, 1 + i))))
    for (let i = 0; i < 12; i++) names.push(months.format(new Date(Date.UTC(2023, i, 15))))
  }
  return names
}

/** Language names are written in their own language in the language picker: "English", "Türkçe". */
const ENDONYMS = 'English'

export function englishVocabulary(): Set<string> {
  const turkish = new Set([...leaves(tr), ...intlTurkish(), ENDONYMS].flatMap(wordsOf))
  const vocab = new Set<string>()
  for (const w of [...leaves(en).flatMap(wordsOf), ...wordsOf(PRIMEVUE_EN)]) if (!turkish.has(w)) vocab.add(w)
  return vocab
}

/**
 * Where the page shows the tenant's data (call texts, parameter names and values as the
 * service sends them, zone names, the user's own query): English there is the data's. The
 * app marks such places with data-user-text (and a title holding a raw key with
 * data-data-title).
 */
export const DATA_REGIONS = [
  '[data-testid="results-grid"] [role="row"]',
  '[data-testid^="row-"]',
  '[data-testid="detail-title"]',
  '[data-testid="detail-summary"]',
  '[data-testid="detail-analysis"] tbody',
  '[data-testid="detail-extra"] td',
  '[data-testid="detail-call-id"]',
  '[data-user-text]',
  '.mono',
  'code'
].join(', ')

/** The visible texts of the page (text nodes, titles, placeholders, aria-labels), data regions left out. */
export async function visibleTexts(page: Page): Promise<string[]> {
  return page.evaluate((dataRegions) => {
    const out: string[] = []
    const visible = (el: Element): boolean =>
      (el as HTMLElement).checkVisibility?.({ checkOpacity: true, checkVisibilityCSS: true }) ?? true
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === Node.ELEMENT_NODE) {
        const el = n as Element
        if (el.closest(dataRegions) || !visible(el)) continue
        for (const a of ['title', 'placeholder', 'aria-label']) {
          // A title naming the service's raw key ("Anahtar: agentName") is marked as data.
          if (a === 'title' && el.hasAttribute('data-data-title')) continue
          const v = el.getAttribute(a)
          if (v) out.push(v)
        }
      } else {
        const parent = n.parentElement
        if (!parent || parent.closest(dataRegions) || !visible(parent) || parent.closest('script, style')) continue
        const text = n.textContent?.trim()
        if (text) out.push(text)
      }
    }
    return out
  }, DATA_REGIONS)
}

/** The English UI words among the page's visible texts, each with the text it was found in. */
export async function englishOnScreen(page: Page, vocab: Set<string>): Promise<string[]> {
  const found: string[] = []
  for (const text of await visibleTexts(page)) {
    for (const w of wordsOf(text)) if (vocab.has(w)) found.push(`${w} in "${text.slice(0, 80)}"`)
  }
  return [...new Set(found)]
}
