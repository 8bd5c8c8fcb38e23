import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import vue from '@vitejs/plugin-vue'

// Three bundles, as in electron-vite's templates. Main stays CommonJS; electron-store is
// ESM-only, so it is bundled rather than left as a require() that would fail at run time —
// and conf with it (a dependency of its own since the browser mode uses it directly).
// The preload runs sandboxed and cannot require anything: it is bundled whole.
export default defineConfig({
  main: {
    build: {
      externalizeDeps: { exclude: ['electron-store', 'conf'] },
      rollupOptions: { input: { index: resolve(__dirname, 'src/main/index.ts') } }
    }
  },
  preload: {
    build: {
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' }
      }
    }
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    resolve: { alias: { '@renderer': resolve(__dirname, 'src/renderer/src') } },
    plugins: [vue()],
    build: {
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } }
    }
  }
})
