/**
 * Export at scale: 100,000 calls with ten analysis items each (quick: 20,000) to CSV and
 * XLSX through exportCalls, against a naive export in the same run that holds every row in
 * memory (csv-stringify's sync API; exceljs' non-streaming Workbook). Memory is the rise of
 * the process's RSS over the run, sampled every 20 ms and at every progress report. Then the
 * path `callsight serve` takes, from a real cache, against the old export (export-cache.ts;
 * CALLSIGHT_BENCH_EXPORT_CACHE=0 leaves it out).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'csv-stringify/sync'
import ExcelJS from 'exceljs'
import { DateTime } from 'luxon'
import { exportCalls } from '../src/core/export'
import { neutralizeFormula } from '../src/core/export/cells'
import { maskText } from '../src/core/pii'
import type { CallRecord, ExportFormat } from '../src/shared/domain'
import { cacheRows } from './export-cache'
import { median, type BenchFn, type BenchRow } from './types'

const ZONE = 'Europe/Istanbul'
const KEYS = [
  ['sentiment', 'Müşteri duygusu'],
  ['duration_sec', 'Süre (sn)'],
  ['score', 'Skor'],
  ['amount', 'Tutar'],
  ['reason', 'Arama nedeni'],
  ['agent', 'Temsilci'],
  ['silence_ratio', 'Sessizlik oranı'],
  ['escalated', 'Eskalasyon'],
  ['product', 'Ürün'],
  ['note', 'Not']
] as const
const SUMMARIES = [
  'Müşteri faturasındaki "ek ücret" kalemini sordu; temsilci, iadenin 3 iş günü içinde yapılacağını söyledi ve kaydı güncelledi.',
  'İnternet kesintisi bildirildi.\nModem yeniden başlatıldı, hat testi yapıldı; sorun çözülmedi, teknik ekibe yönlendirildi.',
  'Adres değişikliği talebi: yeni adres Şişli, İstanbul. Müşteri [MASKED] numarasından geri aranmak istedi.',
  '=Tarife değişimi istendi, kampanya koşulları anlatıldı, müşteri düşüneceğini söyledi.'
]

/** Deterministic calls made one at a time, as a SQLite statement would hand them out. */
export function* calls(count: number): Generator<CallRecord> {
  let seed = 12345
  const random = (): number => {
    seed = (seed * 1664525 + 1013904223) >>> 0
    return seed / 2 ** 32
  }
  const start = Date.UTC(2024, 0, 1)
  for (let i = 0; i < count; i++) {
    const callAt = start + Math.floor(random() * 180 * 86_400_000)
    yield {
      callId: `C-${String(i).padStart(8, '0')}`,
      callAt,
      callDate: new Date(callAt).toISOString(),
      title: ['Fatura itirazı', 'İnternet kesintisi', 'Adres değişikliği', 'Tarife'][i % 4]!,
      summary: SUMMARIES[i % SUMMARIES.length]!,
      analysis: KEYS.map(([key, friendlyName], k) => ({
        key,
        friendlyName,
        value:
          k === 1
            ? String(30 + Math.floor(random() * 900))
            : k === 2
              ? (random() * 20 - 10).toFixed(2)
              : k === 3
                ? i % 5 === 0
                  ? '-5 TL'
                  : (random() * 1000).toFixed(2)
                : k === 6
                  ? random().toFixed(3)
                  : ['Olumlu', 'Fatura', 'Çağla Öztürk', 'Hayır', 'Fiber 100', 'Geri aranacak'][(i + k) % 6]!
      })),
      extra: {}
    }
  }
}

/** Peak RSS rise while `work` runs. */
async function measured<T>(work: (sample: () => void) => Promise<T>): Promise<{ ms: number; riseMb: number; value: T }> {
  const before = process.memoryUsage().rss
  let peak = before
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }
  const timer = setInterval(sample, 20)
  const started = performance.now()
  try {
    const value = await work(sample)
    sample()
    return { ms: performance.now() - started, riseMb: (peak - before) / 2 ** 20, value }
  } finally {
    clearInterval(timer)
  }
}

const analysisKeys = KEYS.map(([key, friendlyName]) => ({ key, friendlyName }))

async function streamed(format: ExportFormat, file: string, count: number): Promise<{ ms: number; riseMb: number }> {
  return measured(async (sample) => {
    const result = await exportCalls({
      source: { total: count, analysisKeys, records: calls(count) },
      file,
      format,
      columns: ['callId', 'callDate', 'title', 'summary', 'analysis'],
      analysisLayout: 'wide',
      zone: ZONE,
      meta: { query: { text: '' }, appVersion: 'bench', exportedAt: Date.now() },
      onProgress: sample
    })
    if (result.count !== count) throw new Error(`exported ${result.count} of ${count} calls`)
  })
}

/** The naive way: every call in memory, every row in memory, then one write. Same cell rules. */
function naiveRows(count: number): Array<Array<string | number | DateTime>> {
  const all = [...calls(count)]
  return all.map((r) => {
    const dt = DateTime.fromMillis(r.callAt, { zone: ZONE })
    return [
      neutralizeFormula(r.callId),
      dt,
      neutralizeFormula(maskText(r.title)),
      neutralizeFormula(maskText(r.summary)),
      ...r.analysis.map((a) => {
        const v = maskText(a.value)
        const n = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(v) ? Number(v) : NaN
        return Number.isFinite(n) ? n : neutralizeFormula(v)
      })
    ]
  })
}

async function naiveCsv(file: string, count: number): Promise<{ ms: number; riseMb: number }> {
  return measured(async () => {
    const rows = naiveRows(count).map((row) => row.map((c) => (c instanceof DateTime ? c.toISO({ suppressMilliseconds: true }) : c)))
    writeFileSync(
      file,
      stringify([['Call ID', 'Call date', 'Title', 'Summary', ...KEYS.map(([, n]) => n)], ...rows], {
        bom: true,
        record_delimiter: 'windows'
      })
    )
  })
}

async function naiveXlsx(file: string, count: number): Promise<{ ms: number; riseMb: number }> {
  return measured(async () => {
    const book = new ExcelJS.Workbook()
    const sheet = book.addWorksheet('Calls')
    sheet.addRow(['Call ID', 'Call date', 'Title', 'Summary', ...KEYS.map(([, n]) => n)])
    for (const row of naiveRows(count)) {
      sheet.addRow(row.map((c) => (c instanceof DateTime ? new Date(c.toMillis() + c.offset * 60_000) : c)))
    }
    await book.xlsx.writeFile(file)
  })
}

export const run: BenchFn = async (ctx) => {
  const count = ctx.quick ? 20_000 : 100_000
  const xlsxRuns = ctx.quick ? 1 : 3
  const full = !ctx.quick
  const label = count.toLocaleString('en-US')

  const csv: Array<{ ms: number; riseMb: number }> = []
  for (let i = 0; i < 3; i++) {
    csv.push(await streamed('csv', join(ctx.workDir, `calls-${i}.csv`), count))
    ctx.log(`csv run ${i + 1}: ${csv.at(-1)!.ms.toFixed(0)} ms, RSS +${csv.at(-1)!.riseMb.toFixed(1)} MB`)
  }
  const xlsx: Array<{ ms: number; riseMb: number }> = []
  for (let i = 0; i < xlsxRuns; i++) {
    xlsx.push(await streamed('xlsx', join(ctx.workDir, `calls-${i}.xlsx`), count))
    ctx.log(`xlsx run ${i + 1}: ${xlsx.at(-1)!.ms.toFixed(0)} ms, RSS +${xlsx.at(-1)!.riseMb.toFixed(1)} MB`)
  }
  // Baselines last: what they allocate stays in the heap and would flatter the streamed runs' RSS.
  const csvNaive = await naiveCsv(join(ctx.workDir, 'naive.csv'), count)
  ctx.log(`naive csv: ${csvNaive.ms.toFixed(0)} ms, RSS +${csvNaive.riseMb.toFixed(1)} MB`)
  const xlsxNaive = await naiveXlsx(join(ctx.workDir, 'naive.xlsx'), count)
  ctx.log(`naive xlsx: ${xlsxNaive.ms.toFixed(0)} ms, RSS +${xlsxNaive.riseMb.toFixed(1)} MB`)

  const row = (metric: string, value: number, baseline: number, unit: string, target: number, note: string): BenchRow => ({
    metric,
    value,
    unit,
    baseline,
    ratio: value / baseline,
    ...(full ? { target, targetKind: 'max' as const } : {}),
    note: `${note}; ratio = streamed / naive, lower is better${full ? '' : '; targets apply to 100,000 calls'}`
  })
  const csvMs = median(csv.map((r) => r.ms))
  const xlsxMs = median(xlsx.map((r) => r.ms))
  return {
    name: 'export',
    rows: [
      row(`CSV, ${label} calls × 10 analysis items`, csvMs, csvNaive.ms, 'ms', 3_000, 'median of 3'),
      row('CSV, RSS rise', Math.max(...csv.map((r) => r.riseMb)), csvNaive.riseMb, 'MB', 150, 'worst of 3'),
      row(
        `XLSX, ${label} calls × 10 analysis items`,
        xlsxMs,
        xlsxNaive.ms,
        'ms',
        20_000,
        `median of ${xlsxRuns}; baseline: exceljs non-streaming Workbook`
      ),
      row('XLSX, RSS rise', Math.max(...xlsx.map((r) => r.riseMb)), xlsxNaive.riseMb, 'MB', 150, `worst of ${xlsxRuns}`),
      { metric: 'CSV throughput', value: count / (csvMs / 1000), unit: 'calls/s', note: 'from the median' },
      ...(process.env.CALLSIGHT_BENCH_EXPORT_CACHE === '0' ? [] : await cacheRows(ctx))
    ]
  }
}
