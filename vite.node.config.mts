import { resolve } from 'node:path'
import { builtinModules } from 'node:module'
import { defineConfig } from 'vite'
import pkg from './package.json' with { type: 'json' }

// The plain-Node entry points (CLI, reference service, benchmarks) are built apart from
// the Electron bundles so that they run under the Node that runs the tests.
const external = [
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
  ...Object.keys(pkg.dependencies),
  ...Object.keys(pkg.devDependencies)
].map((name) => new RegExp(`^${name.replace(/[/\\^$*+?.()|[\]{}]/g, '\\$&')}(/.*)?$`))

export default defineConfig({
  build: {
    ssr: true,
    target: 'node20',
    outDir: 'out/node',
    emptyOutDir: true,
    minify: false,
    sourcemap: true,
    rollupOptions: {
      input: {
        cli: resolve(import.meta.dirname, 'src/cli/index.ts'),
        service: resolve(import.meta.dirname, 'src/reference-service/bin.ts'),
        bench: resolve(import.meta.dirname, 'bench/index.ts'),
        'bench-app-pull': resolve(import.meta.dirname, 'bench/app-pull-child.ts'),
        'bench-ingest-child': resolve(import.meta.dirname, 'bench/ingest-child.ts'),
        'bench-export-child': resolve(import.meta.dirname, 'bench/export-child.ts'),
        'bench-scale-memory': resolve(import.meta.dirname, 'bench/scale-memory-child.ts'),
        'bench-scale-profile': resolve(import.meta.dirname, 'bench/scale-profile.ts'),
        'bench-cli-legacy-limiter': resolve(import.meta.dirname, 'bench/baselines/cli-legacy-limiter.ts')
      },
      external,
      output: { format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: 'chunks/[name]-[hash].mjs' }
    }
  }
})
