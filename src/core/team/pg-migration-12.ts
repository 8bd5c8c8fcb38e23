import { q } from './connection'
import { membersByCallSql } from './pg-migration-11'

/**
 * Version 12: the memberships by call for the postings' builder (pg-migration-11.ts,
 * MEMBERS_BY_CALL) on a cache numbered by version 11; a cache whose search is off gets it
 * from `team search enable`, with the numbering.
 */
export function membersByCallV12(schema: string): string {
  const s = q(schema)
  return `
    DO $members$
    BEGIN
      IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${s}.calls'::regclass AND attname = 'num' AND NOT attisdropped) THEN
        ${membersByCallSql(s)}
      END IF;
    END
    $members$;
  `
}
