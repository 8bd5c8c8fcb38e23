import { SyncScope, type SyncOrder, type SyncScopeInput } from '../../shared/domain'
import { maxTake } from '../../shared/service-limits'
import { CallTypeNames } from '../cache/call-types/call-type-names'
import { CallsightError } from '../errors'
import { readCheckpoint, type Checkpoint } from './checkpoint'
import type { SyncStore } from './ports'
import { scopeFilters, scopeKey, type ScopeFilters } from './scope-key'
import { initialPager } from './window-pager'

export type SyncMode = 'full' | 'incremental'

/** What the plan phase settles before the first page is asked for. */
export interface RunPlan {
  scope: SyncScope
  /** The scope's filters in canonical form, and the key the cache files them under. */
  filters: ScopeFilters
  key: string
  /** The largest take the service allows for these filters. */
  pageSize: number
  /** Where this run starts: a stored checkpoint it continues, or a new pass. */
  checkpoint: Checkpoint
  /** It continues a stored checkpoint: calls returned before this run are not known to it. */
  resumed: boolean
}

/**
 * The plan phase: files the scope and decides the
 * window to start from. Continues the stored checkpoint when it is for the same range;
 * otherwise plans a new pass (an incremental one from the look-back before the covered end)
 * and stores its checkpoint, so a kill before the first page resumes the same plan. A stored
 * pass continues in the order it was started in, whatever `order` says: switching mid-pass
 * would lose the proof of what is already stored.
 */
export async function planRun(
  store: SyncStore,
  input: SyncScopeInput,
  mode: SyncMode,
  lookbackMs: number,
  order: SyncOrder = 'newest'
): Promise<RunPlan> {
  const scope = parseScope(input)
  const filters = scopeFilters(scope)
  const key = scopeKey(filters)
  await store.ensureScope(key, filters)
  const plan = { scope, filters, key, pageSize: maxTake(filters.includeAnalysis) }

  const stored = readCheckpoint(await store.getCheckpoint(key))
  if (stored && continues(stored, scope)) return { ...plan, checkpoint: stored, resumed: true }
  // A finished pass whose coverage was not yet recorded (killed right at the end).
  if (stored?.pager.done) await store.addCoverage(key, stored.rangeFrom, stored.rangeTo)
  const rangeFrom = mode === 'incremental' ? passStart(await store.coverage(key), scope, lookbackMs) : scope.from
  const checkpoint = newPass(scope, rangeFrom, order)
  await store.setCheckpoint(key, checkpoint)
  return { ...plan, checkpoint, resumed: false }
}

/**
 * A stored pass continues when the run asks for the same start and an end no earlier than the
 * pass's own. The end of a range picked as "the last N days" is "now", which has moved by the
 * time the user comes back to continue: keyed to it, a cancelled pass would never match and
 * the next run would fetch everything it already stored again. The pass keeps its own end
 * until it is done; the calls after it are left to the next run, which starts from the
 * coverage this pass records.
 */
export function continues(stored: Checkpoint, scope: Pick<SyncScope, 'from' | 'to'>): boolean {
  if (stored.requestFrom !== scope.from) return false
  return stored.pager.done ? stored.requestTo === scope.to : stored.requestTo <= scope.to
}

/**
 * Where an incremental pass starts: the look-back before the end of the coverage that holds
 * `from` (late calls and late analysis land there), never before `from`; `from` itself when
 * nothing covers it.
 */
export function passStart(
  coverage: ReadonlyArray<readonly [number, number]>,
  scope: Pick<SyncScope, 'from' | 'to'>,
  lookbackMs: number
): number {
  const covering = coverage.find(([a, b]) => a <= scope.from && scope.from <= b)
  return covering ? Math.max(scope.from, Math.min(covering[1], scope.to) - lookbackMs) : scope.from
}

/** The checkpoint of a pass over [rangeFrom, scope.to) that has not fetched anything yet. */
export function newPass(scope: Pick<SyncScope, 'from' | 'to'>, rangeFrom: number, order: SyncOrder = 'oldest'): Checkpoint {
  const pager = initialPager(rangeFrom, order === 'newest' ? { rangeTo: scope.to } : undefined)
  if (pager.windowStart >= scope.to) pager.done = true
  return { v: 1, requestFrom: scope.from, requestTo: scope.to, rangeFrom, rangeTo: scope.to, pager }
}

/**
 * The spec has no catalog endpoint: besides an imported or edited catalog, the catalog learns
 * the names a sync succeeded with (the service accepted them). This is the one place they
 * are added, for the app and the CLI alike: a name that is already some entry's Value or
 * Description, in any case, adds nothing; a new one is its own Value, with no Description
 * (the service gives none; importing the catalog later files it under its entry).
 */
export async function rememberCallTypes(
  store: Pick<SyncStore, 'callTypes' | 'upsertCallTypes'>,
  callTypes: readonly string[]
): Promise<void> {
  if (callTypes.length === 0) return
  const names = new CallTypeNames(await store.callTypes())
  const fresh = [...new Set(callTypes.filter((t) => names.canonical(t) === null))]
  if (fresh.length > 0) await store.upsertCallTypes(fresh.map((value) => ({ value, description: '' })))
}

export function parseScope(input: SyncScopeInput): SyncScope {
  const parsed = SyncScope.safeParse(input)
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => ({ members: i.path.map(String), message: i.message }))
    throw new CallsightError('InvalidInput', fields[0]?.message ?? 'The sync scope is not valid.', { fields })
  }
  return parsed.data
}
