import { describe, expect, it } from 'vitest'
import { ERROR_CODES, type AppErrorInfo } from '../../../src/shared/errors'
import { describeError, toErrorInfo } from '../../../src/renderer/src/lib/errorMessage'
import { EN, TR, placeholders } from './messages'

function info(code: AppErrorInfo['code'], extra: Partial<AppErrorInfo> = {}): AppErrorInfo {
  return { code, message: `core says ${code}`, ...extra }
}

/** What a person would read, rendered the way vue-i18n does for named placeholders. */
function render(table: Map<string, string>, error: AppErrorInfo): string {
  const text = describeError(error)
  const template = table.get(text.key)
  if (template === undefined) throw new Error(`no message for ${text.key}`)
  return template.replace(/\{(\w+)\}/g, (_, name: string) => String(text.params[name] ?? `<<missing ${name}>>`))
}

describe('error messages', () => {
  it('every error code has its own message in both languages, with every placeholder filled', () => {
    const seen = new Set<string>()
    for (const code of ERROR_CODES) {
      const e = info(code, { retryAfterSeconds: 7, fields: [{ members: ['take'], message: 'too big' }], callType: 'Billing', status: 503 })
      const text = describeError(e)
      expect(text.key).toBe(`errors.${code}`)
      for (const table of [EN, TR]) {
        const rendered = render(table, e)
        expect(rendered, code).not.toContain('<<missing')
        const needed = placeholders(table.get(text.key) ?? '')
        for (const p of needed) expect(Object.keys(text.params), `${code} needs ${p}`).toContain(p)
      }
      seen.add(render(EN, e))
    }
    expect(seen.size).toBe(ERROR_CODES.length)
  })

  it('where the team cache answered, its errors name it, in both languages; other codes read as anywhere else', () => {
    const team = (table: Map<string, string>, e: AppErrorInfo): string => {
      const text = describeError(e, 'teamCache')
      const template = table.get(text.key)
      if (template === undefined) throw new Error(`no message for ${text.key}`)
      return template
    }
    for (const code of ['InvalidCredentials', 'Network', 'Timeout', 'DatabaseTooNew', 'Storage'] as const) {
      expect(describeError(info(code), 'teamCache').key).toBe(`teamErrors.${code}`)
      expect(team(EN, info(code)), code).toMatch(/team cache/)
      expect(team(EN, info(code)), code).not.toMatch(/service/)
      expect(team(TR, info(code)), code).toMatch(/[Ee]kip önbelleğ/)
      // The detail and hint rules are the code's own, wherever it came from.
      expect({ ...describeError(info(code), 'teamCache'), key: '' }).toEqual({ ...describeError(info(code)), key: '' })
    }
    expect(team(EN, info('Network'))).toMatch(/continues where it stopped/)
    for (const code of ERROR_CODES.filter((c) => !['InvalidCredentials', 'Network', 'Timeout', 'DatabaseTooNew', 'Storage'].includes(c))) {
      expect(describeError(info(code), 'teamCache')).toEqual(describeError(info(code)))
    }
  })

  it('wrong credentials say so, without blaming the network', () => {
    const en = render(EN, info('InvalidCredentials'))
    expect(en).toMatch(/user name or password is wrong/i)
    expect(en).not.toMatch(/unreachable/i)
  })

  it('IP not allowed tells the user what to ask the operators for', () => {
    const en = render(EN, info('IpNotAllowed', { status: 403 }))
    expect(en).toMatch(/operators/)
    expect(en).toMatch(/egress/)
    expect(en).toMatch(/IP address or range/)
    expect(render(TR, info('IpNotAllowed'))).toMatch(/operatör/)
  })

  it('an unreachable service is called that', () => {
    expect(render(EN, info('Network'))).toMatch(/unreachable/)
    expect(render(TR, info('Network'))).toMatch(/ulaşılamıyor/)
  })

  it('rate limiting states the wait in whole seconds, at least one', () => {
    expect(render(EN, info('RateLimited', { retryAfterSeconds: 41.2 }))).toContain('Wait 42 seconds')
    expect(render(TR, info('RateLimited', { retryAfterSeconds: 0 }))).toContain('1 saniye')
    expect(render(EN, info('RateLimited'))).toContain('60 seconds')
  })

  it('validation lists the fields the service named', () => {
    const e = info('Validation', {
      fields: [
        { members: ['startTime', 'endTime'], message: 'startTime is later than endTime' },
        { members: [], message: 'body was empty' }
      ]
    })
    expect(render(EN, e)).toBe('The service rejected the request: startTime, endTime: startTime is later than endTime; body was empty')
    expect(describeError(e).detail).toBe('core says Validation')
  })

  it('generic codes carry the core sentence as detail; specific ones do not repeat it', () => {
    expect(describeError(info('Internal')).detail).toBe('core says Internal')
    expect(describeError(info('Storage')).detail).toBe('core says Storage')
    expect(describeError(info('InvalidCredentials')).detail).toBeNull()
    expect(describeError(info('Network')).detail).toBeNull()
    expect(describeError(info('Storage', { hint: ' Free some disk space. ' })).hint).toBe('Free some disk space.')
    // A code whose own message says what to do does not repeat the core's advice.
    expect(describeError(info('IpNotAllowed', { hint: 'Ask the operators.' })).hint).toBeNull()
  })

  it('turns a thrown value into the taxonomy', () => {
    const carried = { info: info('NotFound') }
    expect(toErrorInfo(carried)).toEqual(info('NotFound'))
    expect(toErrorInfo(new Error('boom'))).toEqual({ code: 'Internal', message: 'boom' })
    expect(toErrorInfo('odd')).toEqual({ code: 'Internal', message: 'odd' })
  })
})
