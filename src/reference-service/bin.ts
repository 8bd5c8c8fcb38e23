/**
 * `npm run service -- [flags]`: runs the reference service until SIGINT/SIGTERM.
 * stdout line 1 is the base URL, line 2 the admin key; everything else goes to stderr.
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { z } from 'zod'
import { startService, type ServiceOptions } from './index'
import { isValidZone } from './zoned-time'

const USAGE =
  'usage: npm run service -- [--host 127.0.0.1] [--port 0] [--calls N] [--seed S] [--from ISO] [--to ISO] [--rate-limit N/SECONDS] [--rate-window fixed|sliding|bucket] [--rate-burst N] ' +
  '[--token-ttl SECONDS] [--refresh-ttl SECONDS] [--allow-ip LIST] [--envelope paged|array|wrapped] [--date-format offset|utc|naive] [--tz ZONE] ' +
  '[--config FILE] [--dump FILE] [--dense AT:COUNT]... [--latency MS] [--error-rate R] [--error-statuses LIST] [--drop-rate R] ' +
  '[--malformed-rate R] [--truncate-rate R] [--quiet]'

const wholeNumber = (name: string, min = 0) =>
  z
    .string()
    .regex(/^\d+$/, `--${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min, `--${name} must be at least ${min}`)
const share = (name: string) =>
  z
    .string()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, `--${name} must be a number from 0 to 1`)
    .transform(Number)
const instant = (name: string) => z.string().refine((s) => !Number.isNaN(Date.parse(s)), `--${name} must be an ISO instant`)

const flagsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: wholeNumber('port')
    .refine((n) => n <= 65535, '--port must be at most 65535')
    .default(0),
  calls: wholeNumber('calls').optional(),
  seed: z
    .string()
    .regex(/^-?\d+$/, '--seed must be an integer')
    .transform(Number)
    .optional(),
  from: instant('from').optional(),
  to: instant('to').optional(),
  'rate-limit': z
    .string()
    .regex(/^\d+\/\d+(\.\d+)?$/, '--rate-limit must look like N/SECONDS, e.g. 60/60')
    .transform((s) => {
      const [requests, perSeconds] = s.split('/').map(Number) as [number, number]
      return { requests, perSeconds }
    })
    .refine((r) => r.requests > 0 && r.perSeconds > 0, '--rate-limit needs N > 0 and SECONDS > 0')
    .optional(),
  'rate-window': z.enum(['fixed', 'sliding', 'bucket'], { message: '--rate-window must be fixed, sliding or bucket' }).optional(),
  'rate-burst': wholeNumber('rate-burst', 1).optional(),
  'token-ttl': wholeNumber('token-ttl').optional(),
  'refresh-ttl': wholeNumber('refresh-ttl').optional(),
  'allow-ip': z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    )
    .optional(),
  envelope: z.enum(['paged', 'array', 'wrapped'], { message: '--envelope must be paged, array or wrapped' }).optional(),
  'date-format': z.enum(['offset', 'utc', 'naive'], { message: '--date-format must be offset, utc or naive' }).optional(),
  tz: z.string().refine(isValidZone, '--tz must be an IANA time zone, e.g. Europe/Istanbul').optional(),
  config: z.string().min(1).optional(),
  dump: z.string().min(1).optional(),
  dense: z
    .array(
      z
        .string()
        .regex(/^.+:\d+$/, '--dense must look like ISO-INSTANT:COUNT')
        .transform((s) => {
          const cut = s.lastIndexOf(':')
          return { at: s.slice(0, cut), count: Number(s.slice(cut + 1)) }
        })
        .refine((d) => !Number.isNaN(Date.parse(d.at)), '--dense needs an ISO instant before the last colon')
    )
    .optional(),
  latency: wholeNumber('latency').optional(),
  'error-rate': share('error-rate').optional(),
  'error-statuses': z
    .string()
    .regex(/^\d{3}(,\d{3})*$/, '--error-statuses must be a comma-separated list of status codes')
    .transform((s) => s.split(',').map(Number))
    .optional(),
  'drop-rate': share('drop-rate').optional(),
  'malformed-rate': share('malformed-rate').optional(),
  'truncate-rate': share('truncate-rate').optional(),
  quiet: z.boolean().optional()
})

function fail(message: string): never {
  process.stderr.write(`service: ${message} (see --help)\n`)
  process.exit(2)
}

function readFlags(): ServiceOptions & { dump?: string } {
  let values: Record<string, unknown>
  try {
    values = parseArgs({
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        calls: { type: 'string' },
        seed: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        'rate-limit': { type: 'string' },
        'rate-window': { type: 'string' },
        'rate-burst': { type: 'string' },
        'token-ttl': { type: 'string' },
        'refresh-ttl': { type: 'string' },
        'allow-ip': { type: 'string' },
        envelope: { type: 'string' },
        'date-format': { type: 'string' },
        tz: { type: 'string' },
        config: { type: 'string' },
        dump: { type: 'string' },
        dense: { type: 'string', multiple: true },
        latency: { type: 'string' },
        'error-rate': { type: 'string' },
        'error-statuses': { type: 'string' },
        'drop-rate': { type: 'string' },
        'malformed-rate': { type: 'string' },
        'truncate-rate': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean' }
      },
      allowPositionals: false,
      strict: true
    }).values
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e))
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    process.exit(0)
  }
  const parsed = flagsSchema.safeParse(values)
  if (!parsed.success) fail(parsed.error.issues[0]?.message ?? 'invalid flags')
  const f = parsed.data
  if (f['rate-burst'] !== undefined && f['rate-window'] !== 'bucket') fail('--rate-burst goes with --rate-window bucket')
  const faults = {
    latencyMs: f.latency,
    errorRate: f['error-rate'],
    errorStatuses: f['error-statuses'],
    dropRate: f['drop-rate'],
    malformedRate: f['malformed-rate'],
    truncateRate: f['truncate-rate']
  }
  return {
    host: f.host,
    port: f.port,
    calls: f.calls,
    seed: f.seed,
    from: f.from,
    to: f.to,
    rateLimit: f['rate-limit'],
    rateWindow: f['rate-window'],
    rateBurst: f['rate-burst'],
    tokenTtlSeconds: f['token-ttl'],
    refreshTtlSeconds: f['refresh-ttl'],
    allowIps: f['allow-ip'],
    envelope: f.envelope,
    dateFormat: f['date-format'],
    tz: f.tz,
    config: f.config,
    denseSeconds: f.dense,
    faults: Object.fromEntries(Object.entries(faults).filter(([, v]) => v !== undefined)),
    quiet: f.quiet,
    dump: f.dump
  }
}

function writeDump(file: string, records: Iterable<unknown>): number {
  // Generated call data: the user's alone.
  const fd = openSync(file, 'w', 0o600)
  let count = 0
  let chunk = ''
  try {
    for (const r of records) {
      chunk += `${JSON.stringify(r)}\n`
      if (++count % 2000 === 0) {
        writeSync(fd, chunk)
        chunk = ''
      }
    }
    writeSync(fd, chunk)
  } finally {
    closeSync(fd)
  }
  return count
}

async function main(): Promise<void> {
  const { dump, ...opts } = readFlags()
  let service
  try {
    service = await startService(opts)
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e))
  }
  if (dump) {
    // Written before the URL is printed, so a reader of the URL can rely on the file.
    const count = writeDump(dump, service.admin.dumpEach())
    if (!opts.quiet) process.stderr.write(`wrote ${count} calls to ${dump}\n`)
  }
  process.stdout.write(`${service.url}\nx-admin-key: ${service.adminKey}\n`)
  if (!opts.quiet) process.stderr.write(`reference service ready; log in as demo / demo; Ctrl+C to stop\n`)
  const stop = (): void => {
    void service.stop().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

void main()
