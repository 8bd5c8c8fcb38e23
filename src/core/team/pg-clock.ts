/** Now in PostgreSQL's clock, in ms: heartbeats, leases and their age are all read from it. */
export const PG_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint'
