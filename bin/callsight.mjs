#!/usr/bin/env node
// The installed `callsight` command: the CLI bundle in out/node.
process.argv.splice(2, 0, 'cli')
await import('../scripts/run-built.mjs')
