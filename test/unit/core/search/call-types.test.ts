import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CallTypeNames, openCache, parseCallTypeFile, type CallCache } from '../../../../src/core/cache'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type SearchQueryInput } from '../../../../src/shared/domain'
import { makeRecords, tempDir } from '../export/fixtures'

// The service matches an issueTypeNames entry against a catalog entry's Value or
// Description under Turkish case rules; local search resolves names the same way.

const CATALOG = [
  { value: 'Complaint', description: 'Şikayet' },
  { value: 'Refund', description: 'İade Talebi' },
  { value: 'Information', description: 'Bilgi Talebi' }
]
const scope = (callTypes: string[]) => ({
  callTypes,
  direction: null,
  results: 'answered' as const,
  hasNewRequest: null,
  includeAnalysis: true
})

let tmp: ReturnType<typeof tempDir>
let cache: CallCache
beforeEach(() => {
  tmp = tempDir()
  cache = openCache(join(tmp.dir, 'cache.db'))
  cache.ensureScope('sikayet', scope(['Şikayet']))
  cache.writePage({ scopeKey: 'sikayet', records: makeRecords(30, 2), includeAnalysis: true, checkpoint: null })
  cache.upsertCallTypes([{ value: 'Şikayet', description: '' }])
})
afterEach(() => {
  cache.close()
  tmp.remove()
})

const ids = (input: SearchQueryInput): string[] => {
  const search = createSearch(cache)
  return search.page(SearchQuery.parse(input), 0, 100).rows.map((r) => r.callId)
}

describe('call type names', () => {
  it('folds under Turkish case rules: İ/i and I/ı are different letters', () => {
    const names = new CallTypeNames(CATALOG)
    for (const n of ['Complaint', 'COMPLAİNT', 'complaint', 'Şikayet', 'ŞİKAYET', 'şikayet', ' şİkayet '])
      expect(names.canonical(n)).toBe('Complaint')
    expect(names.canonical('iade talebi')).toBe('Refund')
    // Under Turkish rules I is the capital of ı, not of i (as the service compares).
    expect(names.canonical('IADE TALEBI')).toBeNull()
    expect(names.canonical('COMPLAINT')).toBeNull()
    expect(names.resolve(['Şikayet', 'complaint', 'Refund'])).toEqual(['Complaint', 'Refund'])
    expect(() => names.resolve(['Kargo'])).toThrow(
      expect.objectContaining({ code: 'UnknownCallType', callType: 'Kargo', knownCallTypes: ['Complaint', 'Refund', 'Information'] })
    )
  })

  it('a scope synced by Description answers its Value and any casing once the catalog is imported', () => {
    const synced = ids({ callTypes: ['Şikayet'] })
    expect(synced).toHaveLength(30)
    expect(ids({ callTypes: ['ŞİKAYET'] })).toEqual(synced)
    // Before the import the cache cannot know Complaint is Şikayet: refused, with the names it knows.
    expect(() => ids({ callTypes: ['Complaint'] })).toThrow(
      expect.objectContaining({ code: 'UnknownCallType', knownCallTypes: ['Şikayet'] })
    )

    expect(cache.importCallTypes(CATALOG)).toEqual({ added: 3, updated: 0, merged: 1 })
    expect(cache.callTypeEntries().map((t) => [t.value, t.source])).toEqual([
      ['Complaint', 'import'],
      ['Information', 'import'],
      ['Refund', 'import']
    ])
    for (const name of ['Complaint', 'complaint', 'Şikayet', 'şikayet', 'ŞİKAYET']) expect(ids({ callTypes: [name] })).toEqual(synced)
    expect(ids({ callTypes: ['Complaint', 'Refund'] })).toEqual(synced)
    // Known, but no scope returned calls of that type alone.
    expect(ids({ callTypes: ['iade talebi'] })).toEqual([])
    expect(() => ids({ callTypes: ['Kargo'] })).toThrow(expect.objectContaining({ code: 'UnknownCallType', callType: 'Kargo' }))
  })

  it('Settings replaces the whole list; a scope keeps answering its own spelling after its entry is gone', () => {
    cache.importCallTypes(CATALOG)
    cache.importCallTypes([{ value: 'Refund', description: 'İade' }], 'edit')
    expect(cache.callTypeEntries()).toEqual([{ value: 'Refund', description: 'İade', source: 'edit' }])
    expect(ids({ callTypes: ['şikayet'] })).toHaveLength(30)
    expect(ids({ callTypes: ['iade'] })).toEqual([])
  })

  it('reads a catalog file as JSON or CSV (comma or semicolon, BOM, any header case)', () => {
    const json = JSON.stringify([
      { Value: 'Complaint', Description: 'Şikayet' },
      { value: 'Refund', description: 'İade Talebi' },
      { Value: 'Sales' }
    ])
    const want = [
      { value: 'Complaint', description: 'Şikayet' },
      { value: 'Refund', description: 'İade Talebi' },
      { value: 'Sales', description: '' }
    ]
    expect(parseCallTypeFile(json, 'c.json')).toEqual(want)
    expect(parseCallTypeFile(JSON.stringify({ items: [{ Value: 'Sales', Description: null }] }), 'c.json')).toEqual([
      { value: 'Sales', description: '' }
    ])
    expect(parseCallTypeFile('\uFEFFValue,Description\nComplaint,Şikayet\n"Refund","İade Talebi"\nSales,\n', 'c.csv')).toEqual(want)
    expect(parseCallTypeFile('description;VALUE\r\nŞikayet;Complaint\r\nİade Talebi;Refund\r\n;Sales\r\n', 'c.csv')).toEqual(want)
    expect(() => parseCallTypeFile('Name\nx\n', 'c.csv')).toThrow(expect.objectContaining({ code: 'InvalidInput' }))
    expect(() => parseCallTypeFile('[{"Description":"x"}]', 'c.json')).toThrow(expect.objectContaining({ code: 'InvalidInput' }))
    expect(() => parseCallTypeFile('[]', 'c.json')).toThrow(expect.objectContaining({ code: 'InvalidInput' }))
  })
})
