/**
 * `npm run bench [-- --quick] [-- --only name,name]`: runs every benchmark section, prints a
 * table, and writes bench-results.json. Each section measures its own baseline in the same
 * run, so ratios compare like with like on this machine.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { BenchFn, BenchRow, BenchSection } from './types'
import { sections } from './sections'
import { dataDir, isScale, type Scale } from './scale-data'

const USAGE = `npm run bench [-- --quick] [-- --only name,name] [-- --out file.json] [-- --scale 1m|5m]
Sections: ${Object.keys(sections).join(', ')}
--scale: the scale section alone (unless --only names more): the query shapes, ingest, export
and memory at 1,000,000 calls (1m) or at 1,000,000 and 5,000,000 side by side (5m), on data
generated once into ${dataDir()}`

function options(): { quick: boolean; only?: string; out: string; scale?: Scale } {
  try {
    const { values } = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        only: { type: 'string' },
        out: { type: 'string', default: 'bench-results.json' },
        scale: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false }
      },
      allowPositionals: false
    })
    if (values.help) {
      console.log(USAGE)
      process.exit(0)
    }
    if (values.scale !== undefined && !isScale(values.scale)) throw new Error(`--scale takes 1m or 5m, not "${values.scale}"`)
    return { ...values, scale: values.scale as Scale | undefined }
  } catch (e) {
    // A mistyped option: said in one line with the usage, not as a stack trace.
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`)
    process.exit(2)
  }
}
const values = options()

const wanted = values.only ? new Set(values.only.split(',').map((s) => s.trim())) : values.scale ? new Set(['scale']) : null
const unknown = [...(wanted ?? [])].filter((name) => !Object.hasOwn(sections, name))
if (unknown.length > 0) {
  console.error(`bench: no section named ${unknown.join(', ')}.\n${USAGE}`)
  process.exit(2)
}
const fmt = (n: number | undefined): string =>
  n === undefined || Number.isNaN(n) ? '' : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3)

function verdict(r: BenchRow): string {
  if (r.target === undefined) return ''
  const ok = r.targetKind === 'min' ? r.value >= r.target : r.value <= r.target
  return ok ? 'ok' : 'MISSED'
}

async function main(): Promise<void> {
  const results: Array<BenchSection & { seconds: number; error?: string }> = []
  for (const [name, load] of Object.entries(sections) as Array<[string, () => Promise<BenchFn>]>) {
    if (wanted && !wanted.has(name)) continue
    const workDir = mkdtempSync(join(tmpdir(), `callsight-bench-${name}-`))
    const started = performance.now()
    process.stdout.write(`\n# ${name}${values.quick ? ' (quick)' : ''}\n`)
    try {
      const run = await load()
      const section = await run({ workDir, quick: values.quick, scale: values.scale, log: (l) => process.stdout.write(`  ${l}\n`) })
      const seconds = (performance.now() - started) / 1000
      results.push({ ...section, seconds })
      console.table(
        section.rows.map((r) => ({
          metric: r.metric,
          value: fmt(r.value),
          unit: r.unit,
          baseline: fmt(r.baseline),
          ratio: fmt(r.ratio),
          target: r.target === undefined ? '' : `${r.targetKind === 'min' ? '≥' : '≤'} ${fmt(r.target)}`,
          verdict: verdict(r),
          note: r.note ?? ''
        }))
      )
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e)
      console.error(`  ${name} failed: ${message}`)
      results.push({ name, rows: [], seconds: (performance.now() - started) / 1000, error: message })
    } finally {
      rmSync(workDir, { recursive: true, force: true })
    }
  }
  const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model ?? '', memGiB: Math.round(totalmem() / 2 ** 30) }
  writeFileSync(values.out, JSON.stringify({ at: new Date().toISOString(), quick: values.quick, machine, results }, null, 2))
  const missed = results.flatMap((s) => s.rows.filter((r) => verdict(r) === 'MISSED').map((r) => `${s.name}: ${r.metric}`))
  const failed = results.filter((s) => s.error).map((s) => s.name)
  console.log(
    `\nwrote ${values.out}; ${missed.length} target(s) missed${missed.length ? `: ${missed.join('; ')}` : ''}${failed.length ? `; failed sections: ${failed.join(', ')}` : ''}`
  )
  process.exit(failed.length ? 1 : 0)
}

void main()
