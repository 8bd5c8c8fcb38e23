/** Settings, saved searches and what the app reports about itself. */
import { z } from 'zod'
import { Account, RateLimit } from './account'
import { AnalysisLayout, ExportColumn, ExportFormat } from './export'
import { ColumnSort, ResultColumn } from './records'
import { SearchQuery } from './search'
import { DEFAULT_DIRECTIONS, DirectionSettings } from './membership'
import { SyncOrder } from './sync'
import { DisplayZone, EpochMs, IanaZone } from './time'

export const SavedSearch = z.object({
  id: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(200),
  /**
   * "Last N days", kept relative: the query's from/to are then null in storage and the
   * range is read anew, up to the end of today, each time the search is applied.
   */
  relativeDays: z.number().int().min(1).max(3660).optional(),
  query: SearchQuery,
  createdAt: EpochMs
})
export type SavedSearch = z.infer<typeof SavedSearch>

/** Where a call's agent is read: an extra field of the record, or an analysis key. */
export const AgentField = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('field'), name: z.string().regex(/^[A-Za-z0-9_]{1,100}$/) }),
  z.object({ kind: z.literal('analysis'), key: z.string().min(1).max(200) })
])
export type AgentField = z.infer<typeof AgentField>

/** Review settings: who reviews on this computer (local accounts), and where the agent is read. */
export const ReviewSettings = z.object({
  /** The reviewer's name on a local account; null: the account's user name. */
  reviewer: z.string().trim().min(1).max(120).nullable().default(null),
  /** null: the extra field `agent` (or `agentName`, `agent_name`) when the records carry one. */
  agentField: AgentField.nullable().default(null)
})
export type ReviewSettings = z.infer<typeof ReviewSettings>
/**
 * What the user made of one of the record's extra fields (agentName, durationSeconds…): its
 * names in each language, and whether Insight offers it and an export writes it. Absent:
 * the app's own name for a known field (else the raw key), offered and exported.
 */
export const ExtraFieldSetting = z.object({
  nameTr: z.string().trim().max(100).optional(),
  nameEn: z.string().trim().max(100).optional(),
  facet: z.boolean().optional(),
  export: z.boolean().optional()
})
export type ExtraFieldSetting = z.infer<typeof ExtraFieldSetting>

export const Settings = z.object({
  accounts: z.array(Account).default([]),
  activeAccountId: z.string().nullable().default(null),
  displayZone: DisplayZone.default('system'),
  language: z.enum(['system', 'tr', 'en']).default('system'),
  theme: z.enum(['system', 'light', 'dark']).default('system'),
  sync: z
    .object({
      lookbackHours: z
        .number()
        .int()
        .min(0)
        .max(24 * 60)
        .default(48),
      includeAnalysis: z.boolean().default(true),
      results: z.enum(['answered', 'all']).default('answered'),
      presetDays: z.number().int().min(1).max(3660).default(30),
      /** Which end of the range a sync fetches first. */
      order: SyncOrder.default('newest'),
      /** The direction values membership passes learn, with the names the user gave them. */
      directions: DirectionSettings.default([...DEFAULT_DIRECTIONS])
    })
    .default({
      lookbackHours: 48,
      includeAnalysis: true,
      results: 'answered',
      presetDays: 30,
      order: 'newest',
      directions: [...DEFAULT_DIRECTIONS]
    }),
  export: z
    .object({
      format: ExportFormat.default('xlsx'),
      columns: z.array(ExportColumn).min(1).default(['callId', 'callDate', 'title', 'summary', 'extra', 'analysis']),
      analysisLayout: AnalysisLayout.default('wide'),
      /** Write headers in English whatever the UI language, for tools that match them by name. */
      englishHeaders: z.boolean().default(false)
    })
    .default({
      format: 'xlsx',
      columns: ['callId', 'callDate', 'title', 'summary', 'extra', 'analysis'],
      analysisLayout: 'wide',
      englishHeaders: false
    }),
  /** A team cache account's own pulls: every N minutes while connected (0: only when asked). */
  team: z.object({ pullEveryMinutes: z.number().int().min(0).max(1440).default(5) }).default({ pullEveryMinutes: 5 }),
  savedSearches: z.array(SavedSearch).max(500).default([]),
  /** The results list's chosen columns, per account id. */
  resultColumns: z.record(z.string(), z.array(ResultColumn).max(30)).default({}),
  /** The results list's column sort, per account id (absent: the query's own order). */
  resultSort: z.record(z.string(), ColumnSort).default({}),
  review: ReviewSettings.default({ reviewer: null, agentField: null }),
  /** Per account id, per extra field key: the user's names and choices (see ExtraFieldSetting). */
  extraFields: z.record(z.string(), z.record(z.string(), ExtraFieldSetting)).default({})
})
export type Settings = z.infer<typeof Settings>

/** What the renderer may change directly. Accounts come from signing in. */
export const SettingsPatch = z.object({
  displayZone: DisplayZone.optional(),
  language: z.enum(['system', 'tr', 'en']).optional(),
  theme: z.enum(['system', 'light', 'dark']).optional(),
  sync: Settings.shape.sync.unwrap().partial().optional(),
  export: Settings.shape.export.unwrap().partial().optional(),
  team: Settings.shape.team.unwrap().partial().optional(),
  account: z
    .object({ id: z.string().min(1), label: z.string().max(200).optional(), zone: IanaZone.optional(), rateLimit: RateLimit.optional() })
    .optional(),
  /** One account's chosen result columns. */
  resultColumns: z.object({ accountId: z.string().min(1).max(100), columns: z.array(ResultColumn).max(30) }).optional(),
  /** One account's column sort; null: back to the query's own order. */
  resultSort: z.object({ accountId: z.string().min(1).max(100), sort: ColumnSort.nullable() }).optional(),
  review: ReviewSettings.partial().optional(),
  /** One account's setting of one extra field, replacing the one before. */
  extraField: z.object({ accountId: z.string().min(1).max(100), key: z.string().min(1).max(200), setting: ExtraFieldSetting }).optional()
})
export type SettingsPatch = z.infer<typeof SettingsPatch>

// ---------------------------------------------------------------------------------------
// App and cache info
// ---------------------------------------------------------------------------------------

export const CacheInfo = z.object({
  path: z.string().nullable(),
  sizeBytes: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  lastSyncAt: EpochMs.nullable(),
  /** No sync has finished yet but one stopped (cancelled, failed, interrupted): when the latest of them ended. */
  stoppedAt: EpochMs.nullable().optional()
})
export type CacheInfo = z.infer<typeof CacheInfo>

export const AppInfo = z.object({
  version: z.string(),
  electron: z.string().nullable(),
  platform: z.string(),
  /** The OS locale, e.g. "tr-TR". */
  locale: z.string(),
  systemZone: z.string(),
  darkMode: z.boolean()
})
export type AppInfo = z.infer<typeof AppInfo>
