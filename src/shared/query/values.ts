import { foldText } from '../text/fold'
import type { ResolvedNode, Span } from './ast'
import type { KeyRef } from './resolve'

/** A key's values as the data holds them; `complete` when the list is every value it has. */
export interface KnownValues {
  values: readonly string[]
  complete: boolean
}

/** A `key:value` term whose value the key never has: it would silently match nothing. */
export interface ValueWarning {
  key: string
  /** The key as the user reads it: its friendly name, else the key. */
  field: string
  value: string
  /** The values the key does have (most frequent first), to pick from. */
  values: readonly string[]
  span: Span
}

/**
 * The equality terms of a resolved query whose value no call has for that key (compared
 * folded, as the search compares). A key whose values are not all known is never judged:
 * a rare value beyond the list may still match.
 */
export function unknownValues(
  node: ResolvedNode | null,
  keys: readonly KeyRef[],
  known: (key: string) => KnownValues | undefined
): ValueWarning[] {
  const out: ValueWarning[] = []
  const walk = (n: ResolvedNode): void => {
    switch (n.kind) {
      case 'and':
      case 'or':
        n.items.forEach(walk)
        return
      case 'not':
        walk(n.item)
        return
      case 'equals': {
        const list = known(n.key)
        if (!list || !list.complete || list.values.some((v) => foldText(v) === n.folded)) return
        const ref = keys.find((k) => k.key === n.key)
        out.push({ key: n.key, field: ref?.friendlyName || n.key, value: n.value, values: list.values, span: n.span })
        return
      }
      default:
        return
    }
  }
  if (node) walk(node)
  return out
}
