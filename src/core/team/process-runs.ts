/**
 * Whether a process of this machine still runs: a lease whose holder is such a process that
 * is gone (a worker killed and started again) is taken over at once instead of after it
 * lapses. EPERM means it runs under another user.
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}
