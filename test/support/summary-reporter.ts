import type { Reporter, TestModule } from 'vitest/node'

/** Ends the run with one plain line, `N passed, N failed`, that CI reads. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`)
  }
}
