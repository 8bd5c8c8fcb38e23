/**
 * Every command's --help text, apart from the commands' code: `callsight <command> --help`
 * prints it without loading that command's module and its dependencies (PostgreSQL's client,
 * the service client, the cache; bench/cli-startup.ts). Text only: its one import is a path.
 */
import { defaultDataDir } from '../web/data-dir'

export const REVIEW_HELP = `  --status LIST         review status: new,in_review,reviewed,follow_up (new: never annotated too)
  --tag TAG             carrying the tag, repeatable (every one)
  --list ID             in the review list
  --has-note B          with a note (true) or without (false)
  --score MIN..MAX      score total within the range (either end may be left out)
  --scorecard ID        scored with the scorecard
  --reviewer NAME       last changed by the reviewer
  --note TEXT           every word in the note (Turkish case and diacritics fold)
  --service-dropped B   annotated calls the service no longer returns (true), or none of them (false)`

export const QUERY_HELP = `  [text]                the search language (docs/search.md): words match by prefix,
                        "quoted phrases" exactly, OR/or/veya/|, -word / NOT /
                        değil, (groups), title: summary: and analysis keys by
                        key or name ("quoted" with spaces), e.g. on the demo:
                        sentiment:negative  "temsilci puanı">=70
                        agentScore:55..85; a call ID alone (or id:ID) finds it;
                        Turkish case and diacritics fold (istanbul finds İSTANBUL);
                        text starting with "-" goes after --: search --db F -- -iade
  --from ISO --to ISO   date range, read in --zone when without an offset
  --where EXPR          analysis filter, repeatable: key=value, key>=N, key<=N
  --sort S              date (oldest first) | -date (newest first, default) | relevance
  --types LIST          call types by catalog Value or Description, any case
  --results R           answered (default, as the service and sync) | all | a comma list
  --direction N --has-new-request B
                        only calls a synced scope with those filters returned
  --zone ZONE           display zone (default: this computer's)
${REVIEW_HELP}`

export const TEAM_DB_HELP = `  --schema NAME         the tenant's schema in the team cache (default callsight)
  --ssl-mode M          disable | require | verify-ca | verify-full (or sslmode= in the
                        connection string; default disable)
  --ssl-ca FILE         the CA certificate for verify-ca / verify-full (or sslrootcert=)
  The PostgreSQL password comes from PGPASSWORD or ~/.pgpass, never a flag.`

export const SYNC_HELP = `callsight sync --server URL --user NAME --db FILE --from ISO --to ISO [options]

Syncs calls from the service into the cache file. Run it again with the same range to
continue after an interruption; the checkpoint is kept.

  --server URL          the service's base address (https, or http on this computer)
  --user NAME           user name or e-mail; the password comes from CALLSIGHT_PASSWORD
                        or a hidden prompt, never from a flag
  --db FILE|URL         the cache file (created when missing), or a team cache:
                        postgres://USER@HOST:PORT/DATABASE (set up by callsight team init)
  --from ISO --to ISO   the range; without an offset read in --zone; a date alone for
                        --to includes that whole day
  --analysis            also fetch the analysis items (pages of 100 instead of 500)
  --results R           answered (default, as the service) | all | a comma list of numbers
  --types LIST          comma list of call types (catalog Value or Description)
  --direction N         call direction
  --has-new-request B   true | false
  --zone ZONE           the account's IANA zone (default: this computer's)
  --mode M              incremental (default: re-fetch the last --lookback-hours of what
                        is covered, then the rest) | full (the whole range again)
  --order O             newest (default: the latest calls first, so a stopped sync leaves
                        them in the cache) | oldest; a stopped pass resumes in its own order
  --lookback-hours N    default 48
  --rate-limit N/S      the tenant's limit, requests per seconds (default 60/60)
  --memberships         after a sync of everything (--results all, no other filter), learn
                        which calls are of each call type, answered, new requests and each
                        direction, so those filters are answered offline: one pass per value
                        without analysis (500 calls a request), about 0.6 of the requests
                        of a full sync with analysis; the estimate is printed first
  --memberships-only    only the passes, over a range a sync of everything already holds
  --directions LIST     the direction values to learn (default 1,2), each optionally =name
  --json                progress as JSON lines on stdout (at most 10 a second); the last
                        line is the final state
  --verbose             log to stderr
Team cache (--db postgres://…):
${TEAM_DB_HELP}

Examples:
  callsight sync --server https://calls.example.com --user demo --db calls.db --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul --results all --analysis
  callsight sync --server https://calls.example.com --user demo --db calls.db --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul --types Şikayet,Refund
  callsight sync --server https://calls.example.com --user demo --db everything.db --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul --results all --analysis --memberships
  callsight sync --server https://calls.example.com --user demo --db everything.db --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul --results all --memberships-only --directions 1=in,2=out`

export const SEARCH_HELP = `callsight search --db FILE [text] [options]
callsight search --team postgres://LOGIN@HOST/DB [text] [--page N] [--count] [options]

Searches the cache offline; with --team, the team cache in place (read-only, as that login:
the reader role or an analyst's), for calls this workstation does not hold. The password
comes from PGPASSWORD or ~/.pgpass, never the command line. The team cache answers the same
language and filters, newest or oldest first; relevance order, review filters and record-field
filters are refused there.

${QUERY_HELP}
  --limit N             at most N calls (default 20)
  --offset N            skip the first N
  --strict              exit 12 when synced scopes do not cover the whole query
  --team URL            ask the team cache (PostgreSQL) instead of a file;
                        --schema NAME (default callsight), --ssl-mode, --ssl-ca as for pull
  --page N              with --team: page N (1-based) of --limit calls
  --count               with --team: count the matches too: an estimate with the page
                        ("Page 1: 20 of about 5120 … (an estimate)"), then the exact count
                        ("In all: 5123 call(s).")
  --count-budget S      with --count: seconds the exact count may take (default 10); past
                        them the estimate stays, said as one
  --count-sample N      with --count: rows the estimate samples (default 10000; a team
                        cache of up to twice as many is counted exactly at once)
  --explain             say how the first page was served: the plan, the plans tried
                        before it, the facts it was chosen from, and the time it took
                        (on stderr; with --json, as "explain" in the JSON line)
  --json                {"total":N,"items":[{callId, callDate, title, summary, analysis}],
                         "coverage":{"complete":BOOL,"missing":[{callTypes, direction,
                         results, hasNewRequest, from, to}]}}

A query synced scopes do not fully answer prints its answer with one warning line on stderr
naming what is not synced and the sync that fills it.

Examples:
  callsight search --db calls.db --sort -date --limit 5
  callsight search --db calls.db --types complaint --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul --json
  callsight search --db calls.db iptal --results all --strict
  PGPASSWORD=… callsight search --team postgres://ayla@db.example.com/calls "iptal -itiraz" --from 2025-01-01 --page 2 --count`

export const REMOTE_SEARCH_HELP = `callsight remote-search --server URL --user NAME --from ISO --to ISO [options]

One page straight from the service (nothing is cached).

  --types LIST --direction N --has-new-request B   as for sync
  --results R           answered (default, as the service) | all | a comma list of numbers
  --analysis            include analysis items (take at most 100)
  --skip N --take N     paging; take is clamped to the service's bound (default 20)
  --sort date|-date     ascending or descending by time (default -date)
  --zone ZONE --rate-limit N/S --json --verbose

Examples:
  callsight remote-search --server https://calls.example.com --user demo --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul --sort -date --take 5
  callsight remote-search --server https://calls.example.com --user demo --from 2026-03-02T08:00 --to 2026-03-02T12:00 --zone Europe/Istanbul --types ŞİKAYET --json`

export const EXPORT_HELP = `callsight export --db FILE --format csv|xlsx|json|ndjson --out FILE [text] [options]

Writes calls from the cache: the ones named by --ids, or every result of the query.
The file appears only when complete.

${QUERY_HELP}
  --ids LIST            comma list of callIds (instead of a query)
  --columns LIST        callId,callDate,title,summary,analysis,review (default all but review;
                        review: status, tags, note, score, scorecard, reviewer, reviewed at,
                        and in XLSX one sheet per scorecard with each criterion's answer)
  --analysis wide|long  one column per analysis key, or one row per item (default wide)
  --csv-dialect comma|semicolon
                        CSV separator and decimal mark: "," and "." (default), or ";"
                        and "," as Turkish Excel and LibreOffice expect
  --strict              exit 12 when synced scopes do not cover the whole query (the file
                        is written; its metadata records the coverage either way: the JSON
                        header, the XLSX "Export" sheet, beside a CSV the file FILE.meta.json)

Examples:
  callsight export --db calls.db --format xlsx --out calls.xlsx --results all --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul
  callsight export --db calls.db --format csv --out refunds.csv --types Refund --sort -date`

export const TYPES_HELP = `callsight types list --db FILE [--json]
callsight types import --db FILE CATALOG.json|CATALOG.csv

The cache's call type catalog. A local --types filter finds a type by its Value or its
Description, in any case under Turkish rules (Complaint, Şikayet and ŞİKAYET are one type).
The catalog learns the names syncs succeeded with; the service has no catalog endpoint, so
import the tenant's catalog to connect Values with Descriptions:
  JSON  [{"Value":"Complaint","Description":"Şikayet"}, …]
  CSV   a header row Value,Description (or ;-separated), then one type per row

  list      Value, Description and where each came from (sync, import, edit)
  import    adds and updates entries; names syncs learnt are filed under their entry
  --json    list as {"types":[{value, description, source}]}

Examples:
  callsight types import --db calls.db catalog.csv
  callsight types list --db calls.db --json`

export const ANNOTATIONS_HELP = `callsight annotations export|import --db FILE --format json|csv [--out FILE | --in FILE]
callsight annotations push|pull --db FILE --team URL [--schema NAME] [--retry-refused] [--json]

Backs up or hands over review annotations (status, tags, note, score) between cache files,
without a team cache. Notes and tags are masked for personal data on the way out.

  export --out FILE     write every annotation (JSON also carries the scorecards)
  import --in FILE      merge into the cache field by field: the later write wins; fields
                        both sides changed are reported as conflicts. An entry the app
                        would not save (over 50 tags, a tag over 60 or a note over 10,000
                        characters, a time after now + 5 minutes) is left out and
                        reported on stderr with its line; so is a score whose scorecard
                        is not in the cache (CSV carries none), the entry's other fields
                        imported. The rest is imported, and the exit code is then 9.
                        Score totals are computed again, never taken from the file
  --json                import: print the report as JSON ("refused" lists those entries)

  push --team URL       send this cache's queued review changes (annotations; a lead's
                        lists, assignments, scorecards and calibration rounds; calibration
                        answers and submissions) to the team cache, logged
                        in as the analyst's own role (the URL's user; the password in
                        PGPASSWORD or ~/.pgpass). Status and tags merge field by field; a
                        field someone else changed since this cache last saw it is kept
                        as a conflict with both values, for a person to resolve
  pull --team URL       push, then bring the team's review changes since the last pull.
                        Rows over a local save's limits are refused (stderr, exit 9)
  --retry-refused       queue again the changes the team cache refused (a removed role)`

export const SERVE_HELP = `callsight serve [--port N] [--data-dir DIR] [--demo] [--no-open]

Runs Callsight in a browser tab: the app on 127.0.0.1 only, the same screens, accounts,
settings and caches as the desktop app. The first line on stdout is the address to open;
its key works once, within 2 minutes. Press Enter for a new address (to open another
browser, or after the tab was closed): it is printed as its own line, opened where serve
opens the browser, and the earlier key stops working. Ctrl-C stops it.

  --port N          the port on 127.0.0.1 (default: a free one)
  --data-dir DIR    where settings and caches live (default: the desktop app's folder,
                    ${defaultDataDir()})
  --demo            start signed in to the built-in demo tenant, no account needed
  --no-open         print the address only (implied when there is no display)
  --verbose         echo the log (DIR/logs/serve.log) to stderr

Sign-in tokens are kept in memory only in this mode: sign in again after a restart.
Exports are saved by the browser as downloads.`

export const TEAM_HELP = `callsight team init --db URL [--schema NAME] [--writer ROLE] [--reader ROLE]
callsight team status --db URL [--schema NAME] [--json]
callsight team reset --db URL [--schema NAME]
callsight team search enable|disable|status --db URL [--schema NAME]
callsight team add-analyst NAME [--lead] --db URL [--schema NAME]
callsight team remove-analyst NAME --db URL [--schema NAME]
callsight team list-analysts --db URL [--schema NAME] [--json]

init    creates (or upgrades) the tenant's schema in the team cache and two roles: the
        writer, for the worker, and the read-only reader, for analysts' workstations.
        Run it as the database owner; running it again upgrades and re-grants.
        Passwords for new roles come from CALLSIGHT_WRITER_PASSWORD and
        CALLSIGHT_READER_PASSWORD (or hidden prompts); an existing role keeps its
        password unless one is given.
status  what the worker is doing per scope (running, last success, errors with their
        detail, standby workers) and how many calls the team cache holds. Any role that
        may read the schema. Exits 0 when healthy, 13 stale, 14 failing, 15 stopped.
reset   after a restore that keeps the schema's identity (a point-in-time recovery of
        the whole cluster, a failover that lost transactions): every workstation's next
        pull empties what it pulled (annotations stay) and pulls everything again.
        A restore from a dump is noticed without it. Run it as the database owner.
add-analyst     a login role for one analyst (--lead: also creates lists, assigns,
                edits scorecards); its password from CALLSIGHT_ANALYST_PASSWORD or a
                hidden prompt. Run again to set a new password. Database owner.
remove-analyst  a clean revoke: login disabled, sessions ended, grants dropped, role
                dropped; the review rows it wrote stay with its name. Database owner.
list-analysts   the tenant's analysts and leads.
search  the team cache search (search --team, the app's "ask the team cache"), off
        until enabled: enable adds its columns and indexes and indexes every stored
        call (Ctrl-C stops; run again to resume), about doubling PostgreSQL's size per
        call; disable drops them. Database owner.

  --db URL              postgres://USER@HOST:PORT/DATABASE
  --writer ROLE         default <schema>_writer
  --reader ROLE         default <schema>_reader
  --json                status as one JSON object
${TEAM_DB_HELP}`

export const WORKER_HELP = `callsight worker --config FILE [--once] [--metrics FILE] [--pass-concurrency N]

Keeps the scopes of FILE fresh in the team cache: every intervalMinutes each scope is
synced incrementally (the look-back before the covered end is fetched again), one after
the other, within the tenant's rate limit. A pass cut short (killed, stopped) continues
where it stopped. Logs one JSON object per line on stdout; writes its state per scope to
the team cache (callsight team status shows it). SIGTERM or Ctrl-C stops it cleanly: the
current sync keeps its checkpoint, exit 0.

  --config FILE   JSON: {"server","user","zone","db","schema","rateLimit":{"requests",
                  "perSeconds"},"intervalMinutes","lookbackHours","sslMode","sslRootCert",
                  "scopes":[{"name","days" or "from","analysis","results","types",
                  "direction","hasNewRequest"}]} (docs/team.md has an example)
  --once          one cycle, then exit (0 when every scope synced)
  --metrics FILE  write Prometheus text-format metrics there after each scope and cycle
  --pass-concurrency N
                  membership passes run at once over the one rate limit (1 to 8;
                  default the file's passConcurrency, else 3; 1: one by one)

A second worker for the same scopes waits as a standby and takes over when the first
stops. When PostgreSQL restarts or fails over, the worker waits for it and continues the
same scope from its checkpoint.

The service password comes from CALLSIGHT_PASSWORD, the PostgreSQL password from
PGPASSWORD or ~/.pgpass: never from the file or a flag.`

export const STATUS_HELP = `callsight status --db FILE [--from URL] [--schema NAME] [--json]

A workstation's freshness: the calls in FILE, its last pull (when, and up to which change
number) and, when the team cache can be reached (the pulled source, or --from), its newest
change and how many changes the file is behind, as of now. The database password comes
from PGPASSWORD or ~/.pgpass.
${TEAM_DB_HELP}`

export const PULL_HELP = `callsight pull --from URL --db FILE [--schema NAME] [options]

Fills a local cache file from the team cache: only what changed since the last pull,
in batches, each stored with the position it reached (stop it at any moment; the next
pull continues). No request reaches the service. The read-only role is enough.
When the team cache was restored from a backup or reset (callsight team reset), the
pull says so, empties what it pulled before (annotations stay) and pulls everything.

  --from URL            postgres://USER@HOST:PORT/DATABASE of the team cache
  --db FILE             the local cache file (created when missing)
  --batch N             change numbers per batch (default 2000)
  --start-over          the file was pulled from another team cache: empty it first
  --days N              hold only the calls of the last N days (counted back from each
                        pull: older calls are dropped, their annotations stay); the file
                        keeps the window for the next pulls. A wider window fetches the
                        missing days (resumable like any pull)
  --all                 drop the window: hold everything again (fetches what is missing)
  --scope NAME          hold only the calls that are members of this worker scope (its
                        name in the worker config; repeat for several), with --days if
                        given; the file keeps the choice. A changed choice empties what
                        was pulled (annotations stay) and pulls anew. An unknown name is
                        refused with the list of known ones
  --all-scopes          drop the choice of scopes: hold every scope again (pulls anew)
  --index-each-batch    a first pull indexes each batch as it writes it (slower), so the
                        file can be searched while it fills; by default a first pull of
                        20,000 calls or more builds the search index beside it on another
                        core and other opens of the file wait for the pull to end
  --json                progress as JSON lines on stdout; the last line is the result
${TEAM_DB_HELP}`

/** Each command's --help, by command name. */
export const COMMAND_HELP: Record<string, string> = {
  sync: SYNC_HELP,
  search: SEARCH_HELP,
  'remote-search': REMOTE_SEARCH_HELP,
  export: EXPORT_HELP,
  types: TYPES_HELP,
  annotations: ANNOTATIONS_HELP,
  serve: SERVE_HELP,
  team: TEAM_HELP,
  worker: WORKER_HELP,
  pull: PULL_HELP,
  status: STATUS_HELP
}
