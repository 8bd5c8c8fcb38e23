/**
 * Spreading calls evenly across reviewers, pure and deterministic: each call in order goes to
 * the reviewer with the fewest calls so far (ties: the first named), so counts end within
 * one of each other when everyone starts even, and a reviewer who already holds calls gets
 * fewer new ones.
 */
export function spreadEvenly(
  callIds: readonly string[],
  reviewers: readonly string[],
  already: ReadonlyMap<string, number> = new Map()
): Map<string, string> {
  const names = [...new Set(reviewers)]
  const out = new Map<string, string>()
  if (names.length === 0) return out
  const counts = names.map((r) => already.get(r) ?? 0)
  for (const callId of callIds) {
    let best = 0
    for (let i = 1; i < names.length; i++) if (counts[i]! < counts[best]!) best = i
    out.set(callId, names[best]!)
    counts[best]!++
  }
  return out
}
