import { describe, expect, it } from 'vitest'
import { parseFlags, parseRateLimit, parseResults, parseWhere } from '../../../src/cli/args'
import { buildQuery, QUERY_OPTIONS } from '../../../src/cli/commands/query-flags'
import { parseIsoArg } from '../../../src/cli/dates'
import { exitCodeFor } from '../../../src/cli/exit-codes'
import { ERROR_CODES } from '../../../src/shared/errors'

describe('CLI argument parsing', () => {
  it('reads --where as equals and numeric ranges, merging >= and <= on one key', () => {
    expect(parseWhere(['sentiment=negatif', 'score>=3', 'score<=7.5', 'wait<=10'])).toEqual([
      { kind: 'equals', key: 'sentiment', value: 'negatif' },
      { kind: 'range', key: 'score', min: 3, max: 7.5 },
      { kind: 'range', key: 'wait', min: null, max: 10 }
    ])
    expect(() => parseWhere(['score>=x'])).toThrow(/not a number/)
    expect(() => parseWhere(['score>=9', 'score<=1'])).toThrow(/empty/)
    expect(() => parseWhere(['=3'])).toThrow(/key=value/)
  })

  it('takes values that start with a dash as people type them (--sort -date)', () => {
    const opts = { ...QUERY_OPTIONS, json: { type: 'boolean' }, limit: { type: 'string', short: 'n' } } as const
    const { values, positionals } = parseFlags(
      ['fatura', '--sort', '-date', '--direction', '-1', '--json', '--where', '-x=1', '--', '--sort'],
      opts,
      true
    )
    expect(values).toMatchObject({ sort: '-date', direction: '-1', json: true, where: ['-x=1'] })
    expect(positionals).toEqual(['fatura', '--sort'])
    expect(parseFlags(['--sort=-date'], opts).values.sort).toBe('-date')
    // A flag after a string option is still a flag (its value is missing), not its value.
    expect(() => parseFlags(['--sort', '--json'], opts)).toThrow(/--sort/)
    expect(() => parseFlags(['--sort', '-n', '5'], opts)).toThrow(/--sort/)
    expect(buildQuery(parseFlags(['--sort', '-date'], opts).values, [], 'UTC').sort).toBe('date_desc')
    expect(buildQuery(parseFlags(['--sort', 'date'], opts).values, [], 'UTC').sort).toBe('date_asc')
  })

  it('defaults --results to answered only, as the service, sync and the app do', () => {
    expect(buildQuery({}, [], 'UTC').results).toBe('answered')
    expect(buildQuery({ results: 'all' }, [], 'UTC').results).toBe('all')
  })

  it('reads --results as answered, all or a list of numbers', () => {
    expect(parseResults(undefined, 'answered')).toBe('answered')
    expect(parseResults('ALL', 'answered')).toBe('all')
    expect(parseResults('1, 3', 'answered')).toEqual([1, 3])
    expect(() => parseResults('1,x', 'answered')).toThrow(/--results/)
  })

  it('reads --rate-limit as N/SECONDS', () => {
    expect(parseRateLimit('600/1')).toEqual({ requests: 600, perSeconds: 1 })
    expect(parseRateLimit(undefined)).toBeUndefined()
    expect(() => parseRateLimit('fast')).toThrow(/N\/SECONDS/)
  })

  it('reads dates in the zone unless they carry an offset; a date alone as --to includes the day', () => {
    expect(parseIsoArg('2026-01-05T10:00:00', 'Europe/Istanbul', '--from')).toBe(Date.parse('2026-01-05T07:00:00Z'))
    expect(parseIsoArg('2026-01-05T10:00:00Z', 'Europe/Istanbul', '--from')).toBe(Date.parse('2026-01-05T10:00:00Z'))
    expect(parseIsoArg('2026-01-05', 'Europe/Istanbul', '--to', true)).toBe(Date.parse('2026-01-05T21:00:00Z'))
    expect(() => parseIsoArg('yesterday', 'UTC', '--from')).toThrow(/--from/)
  })

  it('gives every error code an exit code, distinct per class', () => {
    for (const code of ERROR_CODES) expect(exitCodeFor(code)).toBeGreaterThanOrEqual(1)
    expect(exitCodeFor('InvalidCredentials')).not.toBe(exitCodeFor('ReloginRequired'))
    expect(exitCodeFor('DenseSecond')).toBe(11)
    expect(exitCodeFor('Cancelled')).toBe(130)
  })
})
