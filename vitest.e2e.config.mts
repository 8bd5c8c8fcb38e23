import { defineConfig } from 'vitest/config'

// End-to-end tests: the built renderer in Debian's headless Chromium, driven by
// playwright-core, at the address `callsight serve` (the built CLI) prints (test/e2e/support).
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default', './test/support/summary-reporter.ts']
  }
})
