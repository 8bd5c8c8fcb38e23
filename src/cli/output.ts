import type { Logger } from '../core/platform'
import type { SyncProgress } from '../shared/domain'
import { syncShare } from '../shared/sync-share'
import { jsonLine, terminalLine } from './terminal-text'

export interface Io {
  out: (text: string) => void
  err: (text: string) => void
  /** stderr is a terminal: draw a progress bar there. */
  tty: boolean
}

export const processIo = (): Io => ({
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  tty: process.stderr.isTTY === true
})

/** Logs go to stderr with --verbose only; the client's logger already strips secrets. */
export function cliLogger(io: Io, verbose: boolean): Logger {
  return {
    log: (level, message, fields) => {
      if (!verbose && level !== 'error') return
      io.err(`[${level}] ${terminalLine(message)}${fields ? ` ${jsonLine(fields)}` : ''}\n`)
    }
  }
}

function duration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '--'
  const s = Math.round(seconds)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

/** One line, redrawn in place on a terminal. */
export function progressLine(p: SyncProgress, width = 24): string {
  const share = syncShare(p)
  const filled = Math.round(share * width)
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`
  const wait = p.waitSeconds !== null && p.phase === 'waiting' ? ` waiting ${duration(p.waitSeconds)}` : ''
  return `${bar} ${(share * 100).toFixed(0).padStart(3)}%  ${p.stored} stored  ${p.requests} req  ${p.requestsPerMinute.toFixed(0)} req/min${paceText(p)}  ${p.recordsPerSecond.toFixed(0)} rec/s  ETA ${duration(p.etaSeconds)}${wait}`
}

/** The limiter's pace against the configured limit, and whether the service slowed us down. */
function paceText(p: SyncProgress): string {
  if (!p.pace) return ''
  const { perMinute, limitPerMinute, throttled } = p.pace
  return ` (pace ${perMinute.toFixed(0)} of ${limitPerMinute.toFixed(0)}/min${throttled ? ', slowed by the service' : ''})`
}

/** Said once when a run was throttled: why it went slower than the configured limit. */
export const THROTTLED_NOTE = "the service asked us to slow down; another workstation may be using the tenant's limit"

export class ProgressBar {
  private lastDraw = 0
  private drawn = false

  constructor(private readonly io: Io) {}

  update(p: SyncProgress): void {
    if (!this.io.tty) return
    const now = Date.now()
    if (now - this.lastDraw < 100 && p.phase === 'fetching') return
    this.lastDraw = now
    this.io.err(`\r\x1b[2K${progressLine(p)}`)
    this.drawn = true
  }

  finish(): void {
    if (this.drawn) this.io.err('\n')
    this.drawn = false
  }
}
