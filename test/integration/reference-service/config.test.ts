import { describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getCalls, login, page, start } from './helpers'

const config = {
  tenants: [
    {
      name: 'acme',
      users: [{ username: 'ayse', email: 'ayse@acme.test', password: 's3cret', zone: 'Europe/Berlin' }],
      callTypes: [
        { Value: 'Complaint', Description: 'Şikayet' },
        { Value: 'Porting', Description: 'Numara Taşıma' }
      ],
      calls: 400,
      allowIps: ['127.0.0.1', '::1']
    },
    { name: 'globex', users: [{ username: 'gus', email: 'gus@globex.test', password: 'pw' }], calls: 150 }
  ]
}

describe('tenant config', () => {
  it('is read from a JSON file: tenants, users, zones, allow lists and the call type catalog', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'callsight-svc-config-')), 'tenants.json')
    writeFileSync(file, JSON.stringify(config))
    const s = await start({ config: file })
    try {
      expect(
        (
          await fetch(`${s.url}/api/public/auth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"username":"demo","password":"demo"}'
          })
        ).status
      ).toBe(401)
      const acme = (await login(s.url, 'ayse@acme.test', 's3cret')).access_token
      const p = await page(s.url, acme, { results: null, take: 5 })
      expect(p.totalCount).toBe(400)
      expect(p.items[0]!.callDate).toMatch(/\+0[12]:00$/)
      const dump = s.admin.dump('acme')
      expect(new Set(dump.map((d) => d.type))).toEqual(new Set(['Complaint', 'Porting']))
      const porting = await page(s.url, acme, { results: null, take: 0, issueTypeNames: ['Numara Taşıma'] })
      expect(porting.totalCount).toBe(dump.filter((d) => d.type === 'Porting').length)
      expect((await getCalls(s.url, acme, { issueTypeNames: ['Refund'] })).status).toBe(400)
      const gus = (await login(s.url, 'gus', 'pw')).access_token
      expect((await page(s.url, gus, { results: null, take: 0 })).totalCount).toBe(150)
      expect(s.admin.addCalls(10, { tenant: 'globex' })).toBe(160)
      expect((await page(s.url, acme, { results: null, take: 0 })).totalCount).toBe(400)
    } finally {
      await s.stop()
    }
  })

  it('refuses an invalid config with a clear message', async () => {
    await expect(start({ config: { tenants: [] } })).rejects.toThrow(/Invalid service config/)
    await expect(
      start({ config: { tenants: [{ name: 'x', users: [{ username: 'a', email: 'a@x.test', password: 'p', zone: 'Mars/Base' }] }] } })
    ).rejects.toThrow(/tenants\.0\.users\.0\.zone/)
    await expect(start({ tz: 'Nowhere/City' })).rejects.toThrow(/time zone/)
    await expect(start({ allowIps: ['300.1.1.1'] })).rejects.toThrow(/IP address/)
  })
})
