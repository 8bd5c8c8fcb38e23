import { en, type MessageTree } from '../../../src/renderer/src/i18n/en'
import { tr } from '../../../src/renderer/src/i18n/tr'

/** Every leaf of a message tree as dotted key → text. */
export function flatten(tree: MessageTree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>()
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k
    if (typeof v === 'string') out.set(key, v)
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv)
  }
  return out
}

export const EN = flatten(en)
export const TR = flatten(tr)

/** The {named} placeholders of a message. */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? ''))].sort()
}
