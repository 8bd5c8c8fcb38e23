/**
 * Builds the CLI bundle the way vite.node.config.mts does (same externals, ESM, node20), but
 * the CLI entry alone and into a folder of its own: other entries of the shared config may
 * be mid-edit, and a parallel `vite build` empties out/node.
 */
import { builtinModules } from 'node:module'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { build } from 'vite'

const root = resolve(import.meta.dirname, '../../..')

export async function buildCli(entry: 'cli' | 'service' = 'cli'): Promise<string> {
  const outDir = join(root, 'node_modules', '.tmp', `callsight-${entry}-test-${process.pid}`)
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

export function removeBuild(cliFile: string): void {
  if (cliFile) rmSync(dirname(cliFile), { recursive: true, force: true })
}
