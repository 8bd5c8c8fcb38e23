/**
 * The PII guard on adversarial text (a guard must stay linear on any input): 100,000-character texts shaped to make a
 * backtracking detector slow, and ordinary texts, through maskText and, in the same run,
 * through the guard as it was before (bench/pii-baseline.ts, whose e-mail regex is
 * quadratic). Target: at most 5 ms per 100 KB text. The baseline's slow cases take seconds,
 * so it runs fewer times (3, or 1 with --quick); the guard runs 21 times (7).
 */
import { maskText } from '../src/core/pii'
import { baselineMaskText } from './pii-baseline'
import { median, percentile, type BenchFn, type BenchRow } from './types'

const SIZE = 100_000
const SENTENCE = 'Müşteri faturasındaki ek ücret kalemini sordu; temsilci iadenin üç iş günü içinde yapılacağını söyledi. '

const ADVERSARIAL: Array<[string, string]> = [
  ['letters, one "@" at the end', `${'a'.repeat(SIZE - 1)}@`],
  ['letters, one "@" in the middle', `${'a'.repeat(SIZE / 2)}@${'b'.repeat(SIZE / 2 - 1)}`],
  ['"a@" repeated', 'a@'.repeat(SIZE / 2)],
  ['digits only', '5'.repeat(SIZE)],
  ['digits and spaces', '1 '.repeat(SIZE / 2)],
  ['dots and digits', '0.'.repeat(SIZE / 2)],
  // Every character changes under NFKC: the normalized view is built unit by unit.
  ['full-width digits and spaces', '\uFF11 '.repeat(SIZE / 2)]
]

function time(fn: (t: string) => string, text: string, runs: number): { ms: number[]; result: string } {
  const ms: number[] = []
  let result = ''
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    result = fn(text)
    ms.push(performance.now() - t)
  }
  return { ms, result }
}

export const run: BenchFn = async ({ quick, log }) => {
  const runs = quick ? 7 : 21
  const baselineRuns = quick ? 1 : 3
  const rows: BenchRow[] = []
  // Warm both (and build the guard's normalization table) outside the timings.
  maskText('０５３２ １２３ ４５ ６７ ayse@example.com')
  baselineMaskText('0532 123 45 67 ayse@example.com')

  for (const [name, text] of ADVERSARIAL) {
    const { ms: ours, result } = time(maskText, text, runs)
    const { ms: base, result: before } = time(baselineMaskText, text, baselineRuns)
    // Same answers: none of these texts holds anything either guard should mask.
    if (result !== before) throw new Error(`${name}: the guards disagree`)
    const value = median(ours)
    const baseline = median(base)
    log(`${name}: ${value.toFixed(2)} ms (p95 ${percentile(ours, 95).toFixed(2)}), before ${baseline.toFixed(1)} ms`)
    rows.push({
      metric: `maskText, 100 KB: ${name}`,
      value,
      unit: 'ms',
      baseline,
      ratio: baseline / value,
      target: 5,
      targetKind: 'max',
      note: `median of ${runs}, p95 ${percentile(ours, 95).toFixed(2)} ms; baseline = the guard before its linear-time rewrite, median of ${baselineRuns}; ratio = baseline / value`
    })
  }

  // Ordinary text: what normalization costs where nothing is hostile.
  const plain = SENTENCE.repeat(Math.ceil(SIZE / SENTENCE.length)).slice(0, SIZE)
  const withPii = plain.replace(/temsilci/g, (_, at: number) =>
    at % 3 === 0 ? '0532 123 45 67' : at % 3 === 1 ? 'ayse.yilmaz@example.com' : 'temsilci'
  )
  for (const [name, text] of [
    ['Turkish prose, no personal data', plain],
    ['Turkish prose with phones and e-mails', withPii]
  ] as const) {
    const ours = time(maskText, text, runs).ms
    const base = time(baselineMaskText, text, runs).ms
    rows.push({
      metric: `maskText, 100 KB: ${name}`,
      value: median(ours),
      unit: 'ms',
      baseline: median(base),
      ratio: median(base) / median(ours),
      note: `median of ${runs} each; ratio = baseline / value (below 1: the hardened guard is slower)`
    })
  }

  // Many short texts, as the sync and the export feed it: a summary of ~300 characters.
  const summaries = Array.from(
    { length: 20_000 },
    (_, i) => `${SENTENCE}${SENTENCE}${i % 4 === 0 ? `Arayan 0532 ${String(100 + (i % 900))} 45 67.` : 'Kayıt güncellendi.'}`
  )
  const perText = (fn: (t: string) => string): number[] =>
    Array.from({ length: quick ? 3 : 7 }, () => {
      const t = performance.now()
      for (const s of summaries) fn(s)
      return ((performance.now() - t) * 1000) / summaries.length
    })
  const ours = perText(maskText)
  const base = perText(baselineMaskText)
  rows.push({
    metric: 'maskText, 20,000 summaries of ~230 characters',
    value: median(ours),
    unit: 'µs/text',
    baseline: median(base),
    ratio: median(base) / median(ours),
    note: 'median of the passes; ratio = baseline / value (below 1: the hardened guard is slower)'
  })
  return { name: 'pii', rows }
}
