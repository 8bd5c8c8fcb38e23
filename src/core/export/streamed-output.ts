import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { cancelled } from '../errors'
import { asExportError } from './atomic-file'

/**
 * The counterpart of writeAtomically for an export that goes to a stream rather than a file
 * (browser mode's download, received while it is written). There is no rename to make the
 * result appear whole, so the stream's own end says it: it is ended only when every row is
 * written, and on a cancel or a failure it is destroyed with the error, which the receiver
 * must treat as an incomplete transfer (an HTTP response is cut off before its last chunk).
 *
 * The signal is watched past the last row too: a small export is written whole into the
 * stream's lead before the browser asks for it, and a cancel then must still end it, not wait
 * for the browser (or the stream's own timeout) to settle it.
 */
export async function writeToStream<T>(
  sink: Writable,
  name: string,
  write: (out: Writable) => Promise<T>,
  signal?: AbortSignal
): Promise<T> {
  // Errors arrive through the writer's promise or finished(); this keeps a late one from going unhandled.
  sink.on('error', () => undefined)
  const onAbort = (): void => {
    if (!sink.writableFinished && !sink.destroyed) sink.destroy(cancelled('The export'))
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const value = await write(sink)
    if (!sink.writableEnded) sink.end()
    await finished(sink)
    return value
  } catch (e) {
    const error = asExportError(signal?.aborted && !sink.writableFinished ? cancelled('The export') : e, name)
    if (!sink.destroyed) sink.destroy(error)
    throw error
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}
