import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { asExportError } from './atomic-file'

/**
 * The counterpart of writeAtomically for an export that goes to a stream rather than a file
 * (browser mode's download, received while it is written). There is no rename to make the
 * result appear whole, so the stream's own end says it: it is ended only when every row is
 * written, and on a cancel or a failure it is destroyed with the error, which the receiver
 * must treat as an incomplete transfer (an HTTP response is cut off before its last chunk).
 */
export async function writeToStream<T>(sink: Writable, name: string, write: (out: Writable) => Promise<T>): Promise<T> {
  // Errors arrive through the writer's promise or finished(); this keeps a late one from going unhandled.
  sink.on('error', () => undefined)
  try {
    const value = await write(sink)
    if (!sink.writableEnded) sink.end()
    await finished(sink)
    return value
  } catch (e) {
    const error = asExportError(e, name)
    if (!sink.destroyed) sink.destroy(error)
    throw error
  }
}
