import { fieldName, keyByName, type ResolvedNode } from '../../../shared/query'
import { foldText } from '../../../shared/text/fold'

/**
 * The search language taught with the account's own data: every example is built from a key,
 * a value, a number range or a title word this cache holds, so it finds calls when tried.
 * Pure: the help dialog's store reads the material (stores/queryHelp.ts).
 */

export interface HelpKey {
  key: string
  friendlyName: string
  numeric: boolean
  calls: number
}

export interface ExampleMaterial {
  keys: readonly HelpKey[]
  /** A key with few values, and its values most frequent first. */
  category: { key: HelpKey; values: ReadonlyArray<{ value: string; count: number }> } | null
  /** A numeric key and the range of its values. */
  number: { key: HelpKey; min: number; max: number } | null
  /** Titles of the newest calls, for words and phrases that occur. */
  titles: readonly string[]
  /** A call's ID, for the lookup example. */
  callId: string | null
}

/** One row of the help: the example as typed, the message key that explains it, and its arguments. */
export interface QueryExample {
  /** Ways of writing it, each a query that runs on its own. */
  examples: string[]
  label: string
  args?: Record<string, string | number>
}

const WORD = /\p{L}{4,}/gu
const SIMPLE_NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u

/** A key as a field term's name: its friendly name, quoted when it has spaces or signs. */
export function fieldRef(k: Pick<HelpKey, 'key' | 'friendlyName'>): string {
  const name = k.friendlyName.trim() || k.key
  if (SIMPLE_NAME.test(name)) return name
  return name.includes('"') ? k.key : `"${name}"`
}

/** A value as a field term's value: quoted when it has spaces or signs. */
export function valueRef(value: string): string {
  return /^[\p{L}\p{N}_.,-]+$/u.test(value) ? value : `"${value.replace(/"/g, '')}"`
}

function wordsOf(title: string): string[] {
  return [...title.matchAll(WORD)].map((m) => m[0])
}

const fold = (s: string): string => s.toLocaleLowerCase('tr-TR')

/** A number for an example: whole when the key's values are, else two decimals. */
function round(n: number, whole: boolean): string {
  return whole ? String(Math.round(n)) : n.toFixed(2)
}

export function queryExamples(m: ExampleMaterial): QueryExample[] {
  const out: QueryExample[] = []
  const first = m.titles.map(wordsOf).find((w) => w.length > 0) ?? []
  const w1 = first[0]
  // A second word from another title, not in the first one's: OR and NOT then differ from w1 alone.
  const w2 = m.titles.flatMap(wordsOf).find((w) => !first.some((f) => fold(f) === fold(w)))
  if (w1) out.push({ examples: [w1.slice(0, Math.max(4, w1.length - 2))], label: 'queryLang.words' })
  const phraseTitle = m.titles.find((t) => /\p{L}{2,}\s+\p{L}{2,}/u.test(t))
  const phrase = phraseTitle ? /(\p{L}{2,})\s+(\p{L}{2,})/u.exec(phraseTitle) : null
  if (phrase) out.push({ examples: [`"${phrase[1]} ${phrase[2]}"`], label: 'queryLang.phrase' })
  if (w1 && w2) {
    out.push({ examples: [`${w1} veya ${w2}`, `${w1} | ${w2}`], label: 'queryLang.or', args: { bar: '|' } })
    out.push({ examples: [`${w1} -${w2}`, `${w1} değil ${w2}`], label: 'queryLang.not' })
  }
  const cat = m.category && m.category.values.length > 0 ? m.category : null
  if (w1 && w2 && cat) {
    out.push({ examples: [`(${w1} OR ${w2}) ${fieldRef(cat.key)}:${valueRef(cat.values[0]!.value)}`], label: 'queryLang.group' })
  }
  if (w1) out.push({ examples: [`title:${w1}`], label: 'queryLang.field' })
  if (cat) {
    const top = cat.values[0]!
    out.push({
      examples: [`${fieldRef(cat.key)}:${valueRef(top.value)}`, `${cat.key.key}:${valueRef(top.value)}`],
      label: 'queryLang.equalsOf',
      args: {
        name: cat.key.friendlyName || cat.key.key,
        values: cat.values
          .slice(0, 6)
          .map((v) => v.value)
          .join(', ')
      }
    })
  }
  const num = m.number
  if (num && num.max > num.min) {
    const whole = Number.isInteger(num.min) && Number.isInteger(num.max)
    const span = num.max - num.min
    const name = fieldRef(num.key)
    const args = { name: num.key.friendlyName || num.key.key, min: round(num.min, whole), max: round(num.max, whole) }
    out.push({ examples: [`${name}>=${round(num.min + span / 2, whole)}`], label: 'queryLang.compareOf', args })
    out.push({
      examples: [`${name}:${round(num.min + span / 4, whole)}..${round(num.min + (3 * span) / 4, whole)}`],
      label: 'queryLang.rangeOf',
      args
    })
  }
  if (m.callId) out.push({ examples: [m.callId], label: 'queryLang.callId' })
  return out
}

/** The key with few values whose examples show best: the one most calls have. */
export function categoryKey(keys: readonly HelpKey[]): HelpKey | null {
  return [...keys].filter((k) => !k.numeric).sort((a, b) => b.calls - a.calls)[0] ?? null
}

/** The numeric key most calls have. */
export function numberKey(keys: readonly HelpKey[]): HelpKey | null {
  return [...keys].filter((k) => k.numeric).sort((a, b) => b.calls - a.calls)[0] ?? null
}

/** The keys a resolved query compares by value (`key:value`), each once. */
export function equalsKeys(node: ResolvedNode | null): string[] {
  const out = new Set<string>()
  const walk = (n: ResolvedNode): void => {
    if (n.kind === 'equals') out.add(n.key)
    else if (n.kind === 'and' || n.kind === 'or') n.items.forEach(walk)
    else if (n.kind === 'not') walk(n.item)
  }
  if (node) walk(node)
  return [...out].sort()
}

/** One entry of the search box's suggestions: the whole text it would make, and what it is. */
export interface Suggestion {
  text: string
  label: string
}

const LAST_TERM = /^(.*?)(\S*)$/su
/** A last term whose name is quoted (it has spaces): `"Duygu Durumu":ne`. */
const QUOTED_LAST = /^(|.*\s)(-?"[^"]+":"?[^"\s]*)$/su
const FIELD_TERM = /^(-?)([\p{L}_][\p{L}\p{N}_]*|"[^"]+"):("?)([^"]*)$/u
const MAX_SUGGESTIONS = 12

/**
 * Completions of the term being typed, from the account's keys and values: after `name:` the
 * key's values (with their counts), else the keys whose key or friendly name starts with it.
 * `valuesOf` gives a key's values when read; the key it needs is `pendingKey`.
 */
export function suggestionsFor(
  text: string,
  keys: readonly HelpKey[],
  valuesOf: (key: string) => { values: readonly string[]; counts: readonly number[] } | undefined,
  calls: (n: number) => string
): { items: Suggestion[]; pendingKey: string | null } {
  const [, head = '', last = ''] = QUOTED_LAST.exec(text) ?? LAST_TERM.exec(text) ?? []
  const f = FIELD_TERM.exec(last)
  if (f) {
    const [, minus = '', rawName = '', , typed = ''] = f
    const key = keyByName(keys, rawName.replace(/"/g, ''))
    if (!key || key.numeric) return { items: [], pendingKey: null }
    const read = valuesOf(key.key)
    if (!read) return { items: [], pendingKey: key.key }
    const want = foldText(typed)
    const items = read.values
      .map((v, i) => ({ v, n: read.counts[i] ?? 0 }))
      .filter(({ v }) => foldText(v).startsWith(want))
      .slice(0, MAX_SUGGESTIONS)
      .map(({ v, n }) => ({ text: `${head}${minus}${rawName}:${valueRef(v)}`, label: calls(n) }))
    return { items, pendingKey: null }
  }
  const typed = fieldName(last.replace(/^-/, ''))
  if (typed.length < 2) return { items: [], pendingKey: null }
  const items = keys
    .filter((k) => fieldName(k.key).startsWith(typed) || fieldName(k.friendlyName).startsWith(typed))
    .sort((a, b) => b.calls - a.calls)
    .slice(0, MAX_SUGGESTIONS)
    .map((k) => ({ text: `${head}${last.startsWith('-') ? '-' : ''}${fieldRef(k)}:`, label: `${k.friendlyName} · ${calls(k.calls)}` }))
  return { items, pendingKey: null }
}
