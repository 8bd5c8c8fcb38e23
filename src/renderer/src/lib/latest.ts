/**
 * Keeps only the latest of a series of loads: each `run` supersedes the ones before it, and a
 * superseded load's answer (or failure) is dropped even when it arrives last. Without this a
 * slow reply for a column the user already left would overwrite the one for the column shown.
 */
export interface Latest {
  /** Starts a load; `apply` or `fail` runs only if no later run (or `drop`) came meanwhile. */
  run<T>(work: () => Promise<T>, apply: (value: T) => void, fail: (error: unknown) => void): Promise<void>
  /** Supersedes whatever is in flight, with nothing new to load. */
  drop(): void
}

export function latestOnly(): Latest {
  let seq = 0
  return {
    async run(work, apply, fail) {
      const mine = ++seq
      try {
        const value = await work()
        if (mine === seq) apply(value)
      } catch (e) {
        if (mine === seq) fail(e)
      }
    },
    drop() {
      seq++
    }
  }
}
