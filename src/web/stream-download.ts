import type { ServerResponse } from 'node:http'
import { Writable } from 'node:stream'
import { CallsightError } from '../core/errors'

/**
 * What is handed to the response at once: a chunk per write would cost more than the bytes,
 * and fewer, larger chunks cost Chromium's download fewer wake-ups.
 */
const BATCH_BYTES = 1 << 20
/**
 * The writer runs ahead of the browser by at most about this much; past it, it waits
 * (backpressure). Generous: each wait is a hand-over between two processes, and on a busy
 * machine every one of those costs a scheduling delay; with 1 MiB the streamed CSV of 100,000
 * calls was slower than writing the file first.
 */
export const AHEAD_BYTES = 16 << 20
/** A page that never fetches its download (closed, navigated away) does not hold the export forever. */
export const FETCH_WITHIN_MS = 2 * 60_000

/**
 * A download the browser receives while the export writes it: a Writable the export writes
 * into, joined to the HTTP response of `GET /downloads/<id>` once the browser asks for it.
 * Until then, and whenever the response is slower than the writer, writes wait (the usual
 * Writable backpressure), so memory stays bounded.
 *
 * The response is chunked (the size is not known in advance). It ends with its last chunk
 * only when the export ends this stream; a destroyed stream (a cancel, a read or write
 * failure) cuts the connection off before that, which the browser records as a failed
 * download, never a complete one. The other way round, a browser that stops the download
 * destroys this stream, and the export fails with that reason.
 */
export class ResponseSink extends Writable {
  private response: ServerResponse | null = null
  private batch: Buffer[] = []
  private batchBytes = 0
  /** A flush that waits for the browser to ask. */
  private waiting: (() => void) | null = null
  private readonly timer: NodeJS.Timeout

  constructor(opts: { fetchWithinMs?: number; aheadBytes?: number } = {}) {
    super({ highWaterMark: opts.aheadBytes ?? AHEAD_BYTES })
    const fetchWithinMs = opts.fetchWithinMs ?? FETCH_WITHIN_MS
    this.timer = setTimeout(() => {
      this.destroy(new CallsightError('Storage', 'The browser did not start the download. Export again.'))
    }, fetchWithinMs)
    this.timer.unref()
  }

  /** Whether a response was joined (a download URL is answered once). */
  get attached(): boolean {
    return this.response !== null
  }

  /** Joins the browser's request: the headers go out at once, the body as it is written. */
  attach(res: ServerResponse, headers: Record<string, string>): void {
    if (this.response !== null || this.destroyed) throw new Error('A streamed download is answered once.')
    clearTimeout(this.timer)
    this.response = res
    res.on('close', () => {
      if (!res.writableFinished) this.destroy(new CallsightError('Storage', 'The browser stopped the download before it was complete.'))
    })
    res.writeHead(200, headers)
    // The browser starts its download on the headers; without this they would wait for the first chunk.
    res.flushHeaders()
    const go = this.waiting
    this.waiting = null
    go?.()
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.batch.push(chunk)
    this.batchBytes += chunk.length
    if (this.batchBytes < BATCH_BYTES) return callback()
    this.flush(callback)
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flush((error) => {
      if (error) return callback(error)
      // The last chunk, the one that makes the download complete; 'finish' once it is handed to the socket.
      this.response!.end(() => callback())
    })
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.timer)
    this.batch = []
    const res = this.response
    // Cut off without the terminating chunk: the browser sees a failed download.
    if (res !== null && !res.writableFinished) res.destroy()
    this.waiting = null
    callback(error)
  }

  private flush(callback: (error?: Error | null) => void): void {
    const res = this.response
    if (res === null) {
      this.waiting = () => this.flush(callback)
      return
    }
    if (this.batchBytes === 0) return callback()
    const body = this.batch.length === 1 ? this.batch[0]! : Buffer.concat(this.batch, this.batchBytes)
    this.batch = []
    this.batchBytes = 0
    if (res.write(body)) return callback()
    res.once('drain', () => callback())
  }
}
