/** Polls `what` (which may be async) until it gives a value (not undefined); rejects after `ms`. */
export async function until<T>(what: () => T | undefined | Promise<T | undefined>, ms = 60_000, everyMs = 25): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await what()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
