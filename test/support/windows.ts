/** The most events inside any sliding window of `windowMs`: how a rate limit is judged. */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const s = [...times].sort((a, b) => a - b)
  let best = 0
  for (let i = 0, j = 0; i < s.length; i++) {
    while (s[i]! - s[j]! >= windowMs) j++
    best = Math.max(best, i - j + 1)
  }
  return best
}
