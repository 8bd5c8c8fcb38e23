import { cancelled } from '../errors'
import type { Clock, KeyValueStore, Logger } from './index'

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(cancelled())
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        },
        Math.max(0, ms)
      )
      const onAbort = (): void => {
        clearTimeout(timer)
        reject(cancelled())
      }
      signal?.addEventListener('abort', onAbort, { once: true })
    })
}

export class MemoryStore implements KeyValueStore {
  private readonly map = new Map<string, unknown>()
  get(key: string): unknown {
    return this.map.get(key)
  }
  set(key: string, value: unknown): void {
    this.map.set(key, value)
  }
  delete(key: string): void {
    this.map.delete(key)
  }
}

export const silentLogger: Logger = { log: () => undefined }
