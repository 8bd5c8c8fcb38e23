/**
 * Builds the CLI bundle the way vite.node.config.mts does (same externals, ESM, node20), but
 * the CLI entry alone and into a folder of its own: other entries of the shared config may
 * be mid-edit, and a parallel `vite build` empties out/node.
 */
import { builtinModules } from 'node:module'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { build } from 'vite'
import { inject } from 'vitest'

const root = resolve(import.meta.dirname, '../../..')

declare module 'vitest' {
  export interface ProvidedContext {
    /** The CLI bundle the run's global set-up built (test/support/global-setup.ts), if any. */
    callsightCli?: string
  }
}

/** The run's shared CLI bundle, when the global set-up built one; a file run alone has none. */
function sharedCli(): string | undefined {
  try {
    const file = inject('callsightCli')
    return file && existsSync(file) ? file : undefined
  } catch {
    // Outside a test worker (the global set-up itself): there is nothing to share yet.
    return undefined
  }
}

/**
 * The CLI (or reference service) bundle. The CLI is built once per run by the global set-up
 * and shared: fourteen files each building their own spent a minute of the run on vite.
 */
export async function buildCli(entry: 'cli' | 'service' = 'cli'): Promise<string> {
  const shared = entry === 'cli' ? sharedCli() : undefined
  return shared ?? buildBundle(entry, `callsight-${entry}-test-${process.pid}`)
}

/** Builds the bundle into node_modules/.tmp/<folder>; the bundle's path. */
export async function buildBundle(entry: 'cli' | 'service', folder: string): Promise<string> {
  const outDir = join(root, 'node_modules', '.tmp', folder)
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: object; devDependencies: object }
  const names = [
    ...builtinModules,
    ...builtinModules.map((m) => `node:${m}`),
    ...Object.keys(pkg.dependencies),
    ...Object.keys(pkg.devDependencies)
  ]
  const external = names.map((n) => new RegExp(`^${n.replace(/[/\\^$*+?.()|[\]{}]/g, '\\$&')}(/.*)?$`))
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    build: {
      ssr: true,
      target: 'node20',
      outDir,
      emptyOutDir: true,
      minify: false,
      rollupOptions: {
        input: { [entry]: join(root, entry === 'cli' ? 'src/cli/index.ts' : 'src/reference-service/bin.ts') },
        external,
        output: { format: 'esm', entryFileNames: '[name].mjs' }
      }
    }
  })
  const file = join(outDir, `${entry}.mjs`)
  if (!existsSync(file)) throw new Error(`The ${entry} bundle was not built`)
  return file
}

/** Removes a bundle built for one file; the run's shared one stays for the other files. */
export function removeBuild(cliFile: string): void {
  if (cliFile && cliFile !== sharedCli()) rmSync(dirname(cliFile), { recursive: true, force: true })
}
