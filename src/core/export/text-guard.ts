import { neutralizeFormula, parseRealNumber, type NumberCell } from './cells'

/** Short texts repeat a lot (analysis values such as "Yes" or "Olumlu"); long ones rarely do. */
const MEMO_MAX_CHARS = 64
const MEMO_MAX_ENTRIES = 20_000
const MAX_DEPTH = 32

/**
 * Every text on its way out: the PII guard first (a masked value stays masked, and anything
 * the cache let through is masked now), then formula neutralization. The guard is assumed
 * to be a pure function of its input, which is what lets short texts be memoized.
 */
export class TextGuard {
  private readonly memo = new Map<string, string>()

  constructor(private readonly guard: (text: string) => string) {}

  /** Guarded only: for JSON, where no spreadsheet will evaluate anything. */
  mask(text: string): string {
    if (text.length === 0) return text
    if (text.length > MEMO_MAX_CHARS) return this.guard(text)
    let out = this.memo.get(text)
    if (out === undefined) {
      out = this.guard(text)
      if (this.memo.size >= MEMO_MAX_ENTRIES) this.memo.clear()
      this.memo.set(text, out)
    }
    return out
  }

  /** Text that is not personal data (the call's identifier): neutralized, not masked. */
  neutralizeOnly(text: string): string {
    return neutralizeFormula(text)
  }

  /** A spreadsheet text cell. */
  text(text: string): string {
    return neutralizeFormula(this.mask(text))
  }

  /** An analysis value: a real number stays a number, anything else is a text cell. */
  value(text: string): string | NumberCell {
    const masked = this.mask(text)
    return parseRealNumber(masked) ?? neutralizeFormula(masked)
  }

  /**
   * Strings anywhere inside a JSON-like value, masked; everything else as it was. Deeper
   * than any real record nests, the value is dropped rather than let through unmasked.
   */
  deep(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.mask(value)
    if (value === null || typeof value !== 'object') return value
    if (depth >= MAX_DEPTH) return null
    if (Array.isArray(value)) return value.map((v) => this.deep(v, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = this.deep(v, depth + 1)
    return out
  }
}
