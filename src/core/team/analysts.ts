import type pg from 'pg'
import { CallsightError } from '../errors'
import { mapPgError, RoleName } from './connection'
import { analystGroup, leadGroup } from './pg-migration-5'
import { checkReviewSchema } from './review-push'
import { scramVerifier } from './roles'
import { inTransaction } from './pg-transaction'

/**
 * One login role per analyst, in the tenant's analyst group (and the lead group for a lead),
 * so that PostgreSQL itself knows who writes: review rows take `current_user` as author and
 * row-level security holds each analyst to their own (pg-migration-5.ts). Run as the
 * database owner, as `team init` is.
 */
export interface AnalystInfo {
  name: string
  lead: boolean
  canLogin: boolean
}

function groupsOf(schema: string): { analyst: string; lead: string } {
  return { analyst: analystGroup(schema), lead: leadGroup(schema) }
}

/** Whether role r is directly a member of the group named by the parameter (a superuser is a member of every role, so pg_has_role would count it). */
const directMember = (param: string): string =>
  `EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid AND g.rolname = ${param})`

/** A name that is a valid role and none of the tenant's own roles. */
function analystName(schema: string, name: string): string {
  const r = RoleName.safeParse(name)
  if (!r.success)
    throw new CallsightError('InvalidInput', `"${name.slice(0, 80)}" is not a role name: ${r.error.issues[0]?.message ?? ''}.`)
  const { analyst, lead } = groupsOf(schema)
  if ([analyst, lead, `${schema}_writer`, `${schema}_reader`].includes(r.data)) {
    throw new CallsightError('InvalidInput', `"${r.data}" is one of the tenant's own roles; choose the analyst's own name.`)
  }
  return r.data
}

/** Creates an analyst's login (or a lead's), or changes an existing analyst's password and group. */
export async function addAnalyst(
  pool: pg.Pool,
  schema: string,
  name: string,
  password: string,
  lead: boolean
): Promise<{ created: boolean }> {
  const role = analystName(schema, name)
  if (password.length < 8) throw new CallsightError('InvalidInput', 'An analyst password has at least 8 characters.')
  const { analyst, lead: leads } = groupsOf(schema)
  const c = await pool.connect().catch((e: unknown) => {
    throw mapPgError(e)
  })
  try {
    await checkReviewSchema(c, schema)
    return await inTransaction(c, async () => {
      const found = await c.query<{ member: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid AND g.rolname = $2) AND NOT r.rolsuper AS member FROM pg_roles r WHERE r.rolname = $1`,
        [role, analyst]
      )
      const exists = found.rows.length > 0
      // A role that exists and is not ours (another tenant's, the owner) is never taken over.
      if (exists && !found.rows[0]!.member) {
        throw new CallsightError('InvalidInput', `Role "${role}" exists and is not an analyst of "${schema}".`)
      }
      const pw = c.escapeLiteral(scramVerifier(password))
      if (!exists) await c.query(`CREATE ROLE "${role}" LOGIN INHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${pw}`)
      else await c.query(`ALTER ROLE "${role}" LOGIN PASSWORD ${pw}`)
      await c.query(`GRANT "${analyst}" TO "${role}"`)
      if (lead) await c.query(`GRANT "${leads}" TO "${role}"`)
      else await c.query(`REVOKE "${leads}" FROM "${role}"`)
      return { created: !exists }
    })
  } catch (e) {
    throw mapPgError(e)
  } finally {
    c.release()
  }
}

/**
 * A clean revoke: the login is disabled first (no new session between the steps), its
 * sessions ended, what it owns and was granted dropped, and the role dropped. Its review rows
 * stay, with its name as author (a name, not a reference to the role). Returns the sessions ended.
 */
export async function removeAnalyst(pool: pg.Pool, schema: string, name: string): Promise<{ sessionsEnded: number; warnings: string[] }> {
  const role = analystName(schema, name)
  const { analyst } = groupsOf(schema)
  const c = await pool.connect().catch((e: unknown) => {
    throw mapPgError(e)
  })
  try {
    const found = await c.query<{ member: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid AND g.rolname = $2) AND NOT r.rolsuper AS member FROM pg_roles r WHERE r.rolname = $1`,
      [role, analyst]
    )
    if (found.rows.length === 0) throw new CallsightError('NotFound', `There is no role "${role}".`)
    if (!found.rows[0]!.member)
      throw new CallsightError('InvalidInput', `Role "${role}" is not an analyst of "${schema}"; it is left alone.`)
    await c.query(`ALTER ROLE "${role}" NOLOGIN`)
    // Ending another role's sessions takes a superuser or pg_signal_backend: an owner without
    // it still revokes (the open sessions lose every privilege with the role) and is told.
    const warnings: string[] = []
    let sessionsEnded = 0
    try {
      const ended = await c.query<{ ok: boolean }>('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE usename = $1', [
        role
      ])
      sessionsEnded = ended.rows.filter((r) => r.ok).length
    } catch (e) {
      warnings.push(
        `The open sessions of "${role}" could not be ended (${mapPgError(e).message}); grant pg_signal_backend to the owner, or end them as a superuser.`
      )
    }
    await inTransaction(c, async () => {
      await c.query(`REASSIGN OWNED BY "${role}" TO CURRENT_USER`)
      await c.query(`DROP OWNED BY "${role}"`)
      await c.query(`DROP ROLE "${role}"`)
    })
    return { sessionsEnded, warnings }
  } catch (e) {
    throw mapPgError(e)
  } finally {
    c.release()
  }
}

/** The tenant's analysts, by name. */
export async function listAnalysts(pool: pg.Pool, schema: string): Promise<AnalystInfo[]> {
  const { analyst, lead } = groupsOf(schema)
  try {
    const r = await pool.query<{ name: string; lead: boolean; login: boolean }>(
      `SELECT r.rolname AS name, ${directMember('$2')} AS lead, r.rolcanlogin AS login
       FROM pg_roles r
       WHERE ${directMember('$1')} AND NOT r.rolsuper AND r.rolname <> $2
       ORDER BY r.rolname`,
      [analyst, lead]
    )
    return r.rows.map((x) => ({ name: x.name, lead: x.lead, canLogin: x.login }))
  } catch (e) {
    throw mapPgError(e)
  }
}
