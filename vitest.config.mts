import { defineConfig } from 'vitest/config'

// Unit and integration tests under plain Node. Browser tests have their own config
// (vitest.e2e.config.ts) and are never picked up here.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['./test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts']
  }
})
