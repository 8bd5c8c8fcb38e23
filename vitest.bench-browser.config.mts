import { defineConfig } from 'vitest/config'

// Browser benchmarks: measured through the built app in Debian's headless Chromium with the
// end-to-end harness (test/e2e/support), but kept out of the test suite: they report figures
// and assert nothing about time. `npm run bench:browser` (after a build).
export default defineConfig({
  test: {
    include: ['bench/browser/**/*.e2e.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 900_000
  }
})
