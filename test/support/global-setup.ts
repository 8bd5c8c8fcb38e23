import type { TestProject } from 'vitest/node'
import { buildBundle, removeBuild } from '../integration/cli/build-cli'

/** Options of `vitest run` that take the next word as their value. */
const VALUED = new Set(['-c', '--config', '-r', '--root', '--dir', '--project', '--reporter', '--pool', '-t', '--testNamePattern'])

/** The file filters on vitest's command line (`vitest run a.test.ts b`): none for a whole run. */
function fileFilters(argv: readonly string[]): string[] {
  const at = argv.indexOf('run')
  const words = at >= 0 ? argv.slice(at + 1) : []
  return words.filter((w, i) => !w.startsWith('-') && !VALUED.has(words[i - 1] ?? ''))
}

/**
 * A whole run builds the CLI bundle once and shares it (build-cli.ts): about fourteen files
 * spawn the CLI, and each building its own cost a minute of CI. A run of chosen files leaves
 * them to build their own, so one unit file does not wait for a bundle it never uses.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (fileFilters(process.argv).length > 0) return undefined
  const cli = await buildBundle('cli', `callsight-cli-shared-${process.pid}`)
  project.provide('callsightCli', cli)
  return () => {
    // removeBuild keeps the shared bundle when called from a test file; here it is ours.
    removeBuild(cli)
  }
}
