import { defineConfig } from 'vitest/config'

// Unit and integration tests under plain Node. Browser tests have their own config
// (vitest.e2e.config.ts) and are never picked up here.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on the 2-core machines CI runs
    // on. Most files here spend their time waiting on child processes (PostgreSQL clusters,
    // the reference service, the CLI), so two files at a time nearly halve the run.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['./test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts']
  }
})
