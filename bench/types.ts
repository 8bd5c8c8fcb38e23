/** One measured quantity. Medians and ratios against a baseline measured in the same run. */
export interface BenchRow {
  metric: string
  value: number
  unit: string
  /** The same measurement by the baseline (naive client, LIKE query, ...), same run. */
  baseline?: number
  /** value / baseline, or baseline / value for "lower is better"; say which in `note`. */
  ratio?: number
  /** The target from the issue, in the same unit. */
  target?: number
  /** 'max': value must be <= target; 'min': value must be >= target. */
  targetKind?: 'max' | 'min'
  note?: string
}

export interface BenchSection {
  name: string
  rows: BenchRow[]
}

export interface BenchContext {
  /** A scratch folder for databases and files; removed after the run. */
  workDir: string
  /** Smaller sizes for a quick check (`npm run bench -- --quick`). */
  quick: boolean
  /** `--scale`: the scale section's sizes (1m: 1,000,000 calls; 5m: 1,000,000 and 5,000,000). */
  scale?: '1m' | '5m'
  log(line: string): void
}

export type BenchFn = (ctx: BenchContext) => Promise<BenchSection>

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length === 0 ? NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b)
  if (s.length === 0) return NaN
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!
}
