/**
 * The same object, with every method's thrown error or rejection reported to `onError` and
 * every result to `onResult`: the worker learns the detail of an error (its cause chain) that
 * the sync engine reduces to a code and a message, and the rows a write changed.
 */
export function watched<T extends object>(
  target: T,
  onError: (e: unknown, method: string) => void,
  onResult: (value: unknown, method: string) => void = () => undefined
): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const v: unknown = Reflect.get(t, prop, receiver)
      if (typeof v !== 'function') return v
      const name = String(prop)
      return (...args: unknown[]) => {
        let out: unknown
        try {
          out = (v as (...a: unknown[]) => unknown).apply(t, args)
        } catch (e) {
          onError(e, name)
          throw e
        }
        if (out instanceof Promise) {
          return out.then(
            (value: unknown) => {
              onResult(value, name)
              return value
            },
            (e: unknown) => {
              onError(e, name)
              throw e
            }
          )
        }
        onResult(out, name)
        return out
      }
    }
  })
}
