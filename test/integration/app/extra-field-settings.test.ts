import { describe, expect, it } from 'vitest'
import { createTestApp } from '../../support/app-fixture'
import { routerClient } from '../../support/router-client'

describe("the record's extra fields in the settings", () => {
  it("keeps one account's names and choices per field, each patch replacing that field's", async () => {
    const app = createTestApp()
    const c = routerClient(app.controller.handlers)
    try {
      await c.call('settings.update', { extraField: { accountId: 'a1', key: 'agentName', setting: { nameTr: 'Temsilci Adı' } } })
      await c.call('settings.update', { extraField: { accountId: 'a1', key: 'durationSeconds', setting: { facet: false, export: false } } })
      const s = await c.call('settings.update', {
        extraField: { accountId: 'a1', key: 'agentName', setting: { nameTr: 'Temsilci Adı', nameEn: 'Rep' } }
      })
      expect(s.extraFields).toEqual({
        a1: { agentName: { nameTr: 'Temsilci Adı', nameEn: 'Rep' }, durationSeconds: { facet: false, export: false } }
      })
      expect((await c.call('settings.get', {})).extraFields).toEqual(s.extraFields)
    } finally {
      await app.controller.dispose()
    }
  })
})
