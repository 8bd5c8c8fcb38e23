import { parseArgs, type ParseArgsConfig } from 'node:util'
import { z } from 'zod'
import { IanaZone, RateLimit, ResultsFilter, type AnalysisFilter } from '../shared/domain'
import { CallsightError } from '../core/errors'

type Options = NonNullable<ParseArgsConfig['options']>
export type ParsedFlags<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: boolean; strict: true }>
>

/** node:util parseArgs, with its errors turned into one line a person can act on. */
export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = false): ParsedFlags<O> {
  try {
    return parseArgs({ args: joinDashValues(argv, options), options, allowPositionals, strict: true })
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0]! : 'Bad arguments.'
    throw new CallsightError('InvalidInput', msg.replace(/^TypeError \[[A-Z_]+\]: /, ''))
  }
}

/**
 * `--sort -date` as people type it: parseArgs refuses a string option's value that starts
 * with a dash ("argument is ambiguous"). A value that is not itself one of the flags is
 * joined to its option (`--sort=-date`), so `--direction -1` and `--where -x=1` work too.
 */
export function joinDashValues(argv: readonly string[], options: Options): string[] {
  const out: string[] = []
  const isFlag = (arg: string): boolean => {
    if (arg === '--') return true
    if (arg.startsWith('--')) return arg.slice(2).split('=')[0]! in options
    const short = arg.slice(1, 2)
    return Object.values(options).some((o) => o.short === short)
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      out.push(...argv.slice(i))
      break
    }
    const next = argv[i + 1]
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : null
    if (name !== null && options[name]?.type === 'string' && next !== undefined && next.startsWith('-') && next !== '-' && !isFlag(next)) {
      out.push(`${arg}=${next}`)
      i++
    } else out.push(arg)
  }
  return out
}

/** Validates with zod; the first problem becomes one line naming the flag. */
export function check<T extends z.ZodType>(schema: T, value: unknown, flag: string): z.infer<T> {
  const r = schema.safeParse(value)
  if (!r.success) {
    const issue = r.error.issues[0]
    throw new CallsightError('InvalidInput', `${flag}: ${issue?.message ?? 'not valid'}`)
  }
  return r.data
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new CallsightError('InvalidInput', `${flag} is required.`)
  return value
}

const IntString = z
  .string()
  .trim()
  .regex(/^-?\d+$/, 'expected a whole number')
  .transform(Number)

export const parseIntFlag = (raw: string | undefined, flag: string, min: number, max: number): number | undefined =>
  raw === undefined ? undefined : check(IntString.pipe(z.number().int().min(min).max(max)), raw, flag)

export const parseZone = (raw: string | undefined, fallback: string): string => check(IanaZone, raw ?? fallback, '--zone')

export function parseList(raw: string | undefined): string[] {
  if (raw === undefined) return []
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

/** answered | all | a comma list of numeric results. */
export function parseResults(raw: string | undefined, fallback: ResultsFilter): ResultsFilter {
  if (raw === undefined) return fallback
  const t = raw.trim().toLowerCase()
  if (t === 'answered' || t === 'all') return t
  const list = parseList(t).map((s) => (/^\d+$/.test(s) ? Number(s) : NaN))
  return check(ResultsFilter, list.some(Number.isNaN) ? 'x' : list, '--results')
}

/** N/SECONDS, e.g. 60/60 (the spec's default) or 600/1 for a reviewed high-volume tenant. */
export function parseRateLimit(raw: string | undefined): RateLimit | undefined {
  if (raw === undefined) return undefined
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw)
  if (!m) throw new CallsightError('InvalidInput', `--rate-limit: "${raw}" is not N/SECONDS (e.g. 60/60).`)
  return check(RateLimit, { requests: Number(m[1]), perSeconds: Number(m[2]) }, '--rate-limit')
}

export function parseBoolFlag(raw: string | undefined, flag: string): boolean | null {
  if (raw === undefined) return null
  const t = raw.trim().toLowerCase()
  if (t === 'true' || t === 'yes' || t === '1') return true
  if (t === 'false' || t === 'no' || t === '0') return false
  throw new CallsightError('InvalidInput', `${flag}: expected true or false.`)
}

const WHERE = /^\s*([^=<>]+?)\s*(>=|<=|=)\s*(.*)$/

/** key=value, key>=N, key<=N; several on one key (>= and <=) make one range. */
export function parseWhere(list: readonly string[]): AnalysisFilter[] {
  const out: AnalysisFilter[] = []
  const ranges = new Map<string, { kind: 'range'; key: string; min: number | null; max: number | null }>()
  for (const raw of list) {
    const m = WHERE.exec(raw)
    if (!m || m[1]!.trim() === '') throw new CallsightError('InvalidInput', `--where: "${raw}" is not key=value, key>=N or key<=N.`)
    const key = m[1]!.trim()
    const op = m[2]!
    const value = m[3]!.trim()
    if (op === '=') {
      out.push({ kind: 'equals', key, value })
      continue
    }
    const n = Number(value.replace(',', '.'))
    if (value === '' || !Number.isFinite(n)) throw new CallsightError('InvalidInput', `--where: "${value}" in "${raw}" is not a number.`)
    const range = ranges.get(key) ?? { kind: 'range' as const, key, min: null, max: null }
    if (op === '>=') range.min = n
    else range.max = n
    ranges.set(key, range)
  }
  for (const r of ranges.values()) {
    if (r.min !== null && r.max !== null && r.min > r.max)
      throw new CallsightError('InvalidInput', `--where: the range on "${r.key}" is empty.`)
    out.push(r)
  }
  return out
}
