/** Builds served records from a tenant's columns: texts rebuilt from the key, then masked. */
import { maskText } from './masking'
import { RESULTS } from './call-store'
import { analysisItems, callTexts } from './texts'
import type { Tenant } from './tenants'
import type { ZoneFormatter } from './zoned-time'
import type { CallRecord, DumpRecord } from './types'

export function renderRecord(tenant: Tenant, pos: number, formatter: ZoneFormatter, includeAnalysis: boolean): CallRecord {
  const s = tenant.store
  const key = s.key[pos]!
  const version = s.version[pos]!
  const type = s.type[pos]!
  const texts = callTexts(tenant.seed, key, version, type, s.res[pos] === RESULTS.Answered)
  const raw = s.raw.get(key)
  return {
    callId: s.callId(key),
    callDate: formatter.format(s.time[pos]!),
    title: maskText(raw?.title ?? texts.title),
    summary: maskText(raw?.summary ?? texts.summary),
    analysis: includeAnalysis ? analysisItems(tenant.seed, key, version, type, texts.language) : [],
    durationSeconds: texts.durationSeconds,
    agentName: texts.agentName,
    language: texts.language
  }
}

export function renderDumpRecord(tenant: Tenant, pos: number, formatter: ZoneFormatter): DumpRecord {
  const s = tenant.store
  return {
    ...renderRecord(tenant, pos, formatter, true),
    type: tenant.catalog[s.type[pos]!]?.Value ?? '',
    direction: s.dir[pos]!,
    result: s.res[pos]!,
    hasNewRequest: s.fresh[pos] === 1
  }
}
