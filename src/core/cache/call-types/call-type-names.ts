import type { CallType } from '../../../shared/domain'
import { CallsightError } from '../../errors'

/**
 * A call type name as the service compares it: an `issueTypeNames` entry matches a catalog
 * entry's Value or Description (spec, endpoint 3) under Turkish case rules, so "şikayet",
 * "ŞİKAYET" and "Şikayet" are one name and "istanbul" is not "ISTANBUL" (İ/ı differ).
 */
export const foldTypeName = (name: string): string => name.trim().toLocaleLowerCase('tr-TR')

/** Names shown when a name is unknown: the Value, with its Description when there is one. */
const label = (t: CallType): string => (t.description !== '' && t.description !== t.value ? `${t.value} (${t.description})` : t.value)

/**
 * The account's call type catalog as a name lookup: every Value and Description, folded, to
 * the entry's Value. Values are entered first, so a name that is one entry's Value and
 * another's Description finds the first (an ambiguous catalog the service would also have
 * to settle; ours settles it the same way every time).
 */
export class CallTypeNames {
  private readonly byName = new Map<string, string>()

  constructor(readonly catalog: readonly CallType[]) {
    for (const t of catalog) if (!this.byName.has(foldTypeName(t.value))) this.byName.set(foldTypeName(t.value), t.value)
    for (const t of catalog) {
      if (t.description.trim() !== '' && !this.byName.has(foldTypeName(t.description)))
        this.byName.set(foldTypeName(t.description), t.value)
    }
  }

  /** The catalog Value a name stands for, or null when the catalog does not know it. */
  canonical(name: string): string | null {
    return this.byName.get(foldTypeName(name)) ?? null
  }

  /**
   * What a synced scope's name stands for: its Value, or (a name the catalog lost, e.g. an
   * entry deleted in Settings) the folded name itself, which still matches its own spelling.
   */
  scopeValue(name: string): string {
    return this.canonical(name) ?? `\u0000${foldTypeName(name)}`
  }

  /** The Values of a filter's names, in order, once each; an unknown name is refused as the service would. */
  resolve(names: readonly string[]): string[] {
    const out: string[] = []
    for (const name of names) {
      const value = this.canonical(name)
      if (value === null) throw unknownCallType(name, this.catalog)
      if (!out.includes(value)) out.push(value)
    }
    return out
  }

  /** A Value with its Description for messages: "Refund (İade Talebi)". */
  describe(value: string): string {
    const t = this.catalog.find((c) => c.value === value)
    return t ? label(t) : value
  }
}

export function unknownCallType(name: string, catalog: readonly CallType[]): CallsightError {
  const known = catalog.map(label)
  return new CallsightError(
    'UnknownCallType',
    known.length === 0
      ? `"${name}" is not a call type this cache knows; it knows none yet.`
      : `"${name}" is not a call type this cache knows. Known: ${known.join(', ')}.`,
    {
      callType: name,
      knownCallTypes: catalog.map((t) => t.value),
      hint: "Import the account's call type catalog (callsight types import FILE, or Settings), or sync that type (callsight sync … --types NAME)."
    }
  )
}
