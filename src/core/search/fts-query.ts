import { foldText } from '../../shared/text/fold'

/**
 * User text to a safe FTS5 MATCH expression. Every token is emitted as a quoted string, so
 * no operator, column filter, parenthesis or stray quote in the input can reach FTS5's
 * parser as syntax: an unbalanced quote opens a phrase that runs to the end, AND / OR /
 * NOT / NEAR are ordinary words, punctuation separates tokens just as the tokenizer does.
 */

/** Token characters after folding; the same classes unicode61 keeps. */
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu

export interface FtsElement {
  /** Folded tokens; more than one means a phrase. */
  tokens: string[]
  /** The last token is a prefix. */
  prefix: boolean
}

export interface ParsedText {
  elements: FtsElement[]
}

function tokensOf(raw: string): string[] {
  return [...foldText(raw).matchAll(TOKEN)].map((m) => m[0])
}

/** All words of raw text as one exact phrase, or null when it holds no word. */
export function phraseOf(raw: string): FtsElement | null {
  const tokens = tokensOf(raw)
  return tokens.length > 0 ? { tokens, prefix: false } : null
}

/**
 * Splits text into words, "quoted phrases" and `prefix*` words. With prefixLast, the last
 * bare word is a prefix too (as the user types), unless the text ends in a space.
 */
export function parseText(text: string, opts: { prefixLast?: boolean } = {}): ParsedText {
  const prefixLast = opts.prefixLast ?? true
  const elements: FtsElement[] = []
  let lastBare = -1
  let i = 0
  while (i < text.length) {
    const ch = text[i]!
    if (ch === '"') {
      const close = text.indexOf('"', i + 1)
      const end = close === -1 ? text.length : close
      const tokens = tokensOf(text.slice(i + 1, end))
      if (tokens.length > 0) elements.push({ tokens, prefix: false })
      i = end + 1
      continue
    }
    if (/\s/u.test(ch)) {
      i++
      continue
    }
    let end = i
    while (end < text.length && text[end] !== '"' && !/\s/u.test(text[end]!)) end++
    const word = text.slice(i, end)
    const tokens = tokensOf(word)
    if (tokens.length > 0) {
      elements.push({ tokens, prefix: /\*$/.test(word) })
      lastBare = elements.length - 1
    }
    i = end
  }
  const endsOpen = text.length > 0 && !/\s$/u.test(text) && !text.endsWith('"')
  const last = elements[lastBare]
  if (prefixLast && endsOpen && last && lastBare === elements.length - 1) last.prefix = true
  return { elements: dedupe(elements) }
}

function dedupe(elements: FtsElement[]): FtsElement[] {
  const seen = new Set<string>()
  return elements.filter((e) => {
    const k = `${e.tokens.join(' ')}${e.prefix ? '*' : ''}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/**
 * The full terms a prefix stands for, when they are few. FTS5 answers a prefix by merging
 * the doclists of every term it covers, on every evaluation; an OR of a few exact terms is
 * evaluated lazily, which is what a row-by-row probe needs.
 */
export type PrefixExpander = (prefix: string) => string[] | null

/** Tokens never contain a double quote (TOKEN excludes it), so quoting needs no escaping. */
function element(e: FtsElement, column: string | null, expand: PrefixExpander | undefined): string {
  let body = `"${e.tokens.join(' ')}"${e.prefix ? '*' : ''}`
  const terms = e.prefix && expand ? expand(e.tokens[e.tokens.length - 1]!) : null
  if (terms && terms.length > 0) {
    const head = e.tokens.slice(0, -1)
    body = `(${terms.map((t) => `"${[...head, t].join(' ')}"`).join(' OR ')})`
  }
  return column ? `${column} : ${body}` : body
}

/** The MATCH expression: every element must match (implicit AND). Null when nothing is left. */
export function toMatch(parsed: ParsedText, column: string | null = null, expand?: PrefixExpander): string | null {
  if (parsed.elements.length === 0) return null
  return parsed.elements.map((e) => element(e, column, expand)).join(' AND ')
}
