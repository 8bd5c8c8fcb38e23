import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Writable } from 'node:stream'
import type { CallRecord } from '../../shared/domain'
import { CallsightError, cancelled, isCallsightError } from '../errors'
import type { ProgressThrottle } from './progress'

/** Records handled between turns of the event loop: enough to amortize, few enough to cancel promptly. */
const BATCH = 250

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelled('The export')
}

/**
 * Feeds every record to `handle`, in order, and gives the event loop a turn after each
 * batch so that streams drain, progress goes out and a cancel is seen. The iterator is
 * closed on every way out, which releases a better-sqlite3 statement early.
 */
export async function pump(
  records: Iterable<CallRecord>,
  signal: AbortSignal | undefined,
  progress: ProgressThrottle,
  handle: (record: CallRecord) => void | Promise<void>
): Promise<number> {
  throwIfAborted(signal)
  progress.tick(0, true)
  const iterator = records[Symbol.iterator]()
  let count = 0
  let done = false
  try {
    for (;;) {
      const next = readNext(iterator)
      if (next.done === true) break
      const pending = handle(next.value)
      if (pending !== undefined) await pending
      count += 1
      if (count % BATCH === 0) {
        progress.tick(count)
        await nextTurn()
        throwIfAborted(signal)
      }
    }
    done = true
  } finally {
    if (!done) iterator.return?.()
  }
  throwIfAborted(signal)
  // The total itself is reported by the export once the file is complete.
  progress.tick(count)
  return count
}

function readNext(iterator: Iterator<CallRecord>): IteratorResult<CallRecord> {
  try {
    return iterator.next()
  } catch (e) {
    if (isCallsightError(e)) throw e
    throw new CallsightError('Storage', 'The calls could not be read from the local cache. No file was written.', { cause: e })
  }
}

/** Resolves when the stream wants more; rejects if it fails, closes or the export is cancelled. */
export function drained(stream: Writable, signal: AbortSignal | undefined): Promise<void> {
  if (!stream.writableNeedDrain) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      stream.off('drain', onDrain)
      stream.off('error', onError)
      stream.off('close', onClose)
      signal?.removeEventListener('abort', onAbort)
    }
    const onDrain = (): void => {
      cleanup()
      resolve()
    }
    const onError = (e: Error): void => {
      cleanup()
      reject(e)
    }
    const onClose = (): void => {
      cleanup()
      reject(new CallsightError('Storage', 'The export file was closed before it was complete. No file was written.'))
    }
    const onAbort = (): void => {
      cleanup()
      reject(cancelled('The export'))
    }
    stream.on('drain', onDrain)
    stream.on('error', onError)
    stream.on('close', onClose)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
