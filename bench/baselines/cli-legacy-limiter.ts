/**
 * The CLI with the limiter before the tenant's limit was shared (legacy-limiter.ts): the
 * pacing bench runs it beside the built CLI for its same-run baseline. Built by
 * vite.node.config.mts as out/node/bench-cli-legacy-limiter.mjs (a name the CLI's own
 * "invoked directly" check does not take for cli.mjs).
 */
import { main } from '../../src/cli'
import { processIo } from '../../src/cli/output'
import { LegacyTenantRateLimiter } from './legacy-limiter'

void main(process.argv.slice(2), processIo(), { newLimiter: (limit, opts) => new LegacyTenantRateLimiter(limit, opts) }).then((code) => {
  process.exitCode = code
})
