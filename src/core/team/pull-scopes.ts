import type pg from 'pg'
import { z } from 'zod'
import type { CallCache, WindowScope } from '../cache'
import { CallsightError } from '../errors'
import { q } from './connection'

/**
 * The worker scopes a workstation's window holds (docs/team.md, "Windows"): the user names
 * them as the worker config does (`worker_scopes.name`); the pull takes only their calls and
 * memberships. A changed choice empties what was pulled and pulls anew: what a narrower
 * choice would drop and a wider one would bring is then exact without a scope-by-scope
 * backfill.
 */

const NameRow = z.object({ name: z.string(), scope_key: z.string() })

/** Every scope name the team cache's worker keeps, with its keys (a name may stand for several). */
export async function knownScopes(pool: pg.Pool, schema: string): Promise<Map<string, string[]>> {
  const r = await pool.query(`SELECT name, scope_key FROM ${q(schema)}.worker_scopes ORDER BY name, scope_key`)
  const out = new Map<string, string[]>()
  for (const raw of r.rows) {
    const row = NameRow.parse(raw)
    out.set(row.name, [...(out.get(row.name) ?? []), row.scope_key])
  }
  return out
}

/** The names asked for, with their keys; refuses an unknown name, listing the known ones. */
export async function resolveScopes(pool: pg.Pool, schema: string, names: readonly string[]): Promise<WindowScope[]> {
  const known = await knownScopes(pool, schema)
  const unknown = names.filter((n) => !known.has(n))
  if (unknown.length > 0) {
    const list = [...known.keys()]
    throw new CallsightError(
      'InvalidInput',
      `Unknown scope ${unknown.map((n) => `"${n}"`).join(', ')}: the worker keeps no scope of that name.`,
      {
        hint: list.length === 0 ? 'The team cache has no worker scopes yet.' : `Known scopes: ${list.map((n) => `"${n}"`).join(', ')}.`
      }
    )
  }
  return [...new Set(names)].flatMap((name) => known.get(name)!.map((key) => ({ name, key })))
}

/** Whether two choices hold the same scope keys (null: every scope). */
export function sameScopes(a: readonly WindowScope[] | null, b: readonly WindowScope[] | null): boolean {
  if (a === null || b === null) return a === b
  const keys = (l: readonly WindowScope[]): string => JSON.stringify([...new Set(l.map((s) => s.key))].sort())
  return keys(a) === keys(b)
}

export interface ScopeChoice {
  /** The keys the pull takes; null: every scope. */
  keys: string[] | null
  /** Whether the choice changed and the cache was emptied to pull anew. */
  restarted: boolean
}

/**
 * Settles the choice before a pull: `asked` undefined keeps the one the cache holds; null is
 * every scope; names are resolved (an unknown one refused before anything changes). A changed
 * choice empties the cache (review data stays) and records the new one in one transaction.
 */
export async function settleScopes(
  pool: pg.Pool,
  schema: string,
  cache: CallCache,
  asked: readonly string[] | null | undefined
): Promise<{ resolve: () => ScopeChoice; chosen: WindowScope[] | null }> {
  const held = cache.teamScopes()
  const chosen = asked === undefined ? held : asked === null ? null : await resolveScopes(pool, schema, asked)
  return {
    chosen,
    resolve: () => {
      const restarted = !sameScopes(held, chosen)
      if (restarted) cache.chooseTeamScopes(chosen)
      return { keys: chosen === null ? null : [...new Set(chosen.map((s) => s.key))], restarted }
    }
  }
}
