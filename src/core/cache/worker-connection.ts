import type { Worker } from 'node:worker_threads'

/**
 * A worker thread's connections to a cache's files, in a word shared with it, so that the
 * cache's close() knows synchronously when they are gone. A close that returned while a
 * worker still held the file left the WAL and shared-memory files (or a lock) behind for a
 * moment: a folder removed right after failed (ENOTEMPTY; on Windows, a locked file).
 *
 * Starting: the thread has not opened anything yet; Open: it may hold connections; Closing:
 * the owner asked it to close them and waits; Closed: closed, or never opened because the
 * owner closed first.
 */
const ConnectionState = { Starting: 0, Open: 1, Closing: 2, Closed: 3 } as const

/** How long close waits for a worker's connections by default (a long statement may be running). */
export const CLOSE_WAIT_MS = 10_000

/**
 * Plain JavaScript for the worker's source (these workers are eval'd strings): it reads the
 * word from `workerData.connection`. `claimOpen()` before opening anything (false: the owner
 * closed first, so open nothing and end); `closing()` says the owner waits (skip queued work);
 * `closedNow()` once every connection is closed (or failed to open).
 */
export const WORKER_CONNECTION_SOURCE = `
const connectionWord = new Int32Array(require('node:worker_threads').workerData.connection.state)
const CS = require('node:worker_threads').workerData.connection.states
const claimOpen = () => Atomics.compareExchange(connectionWord, 0, CS.Starting, CS.Open) === CS.Starting
const closing = () => Atomics.load(connectionWord, 0) === CS.Closing
const closedNow = () => {
  Atomics.store(connectionWord, 0, CS.Closed)
  Atomics.notify(connectionWord, 0)
}
`

/** The owner's side of the word: give `workerData` to the worker as `connection`. */
export class WorkerConnection {
  private readonly word = new Int32Array(new SharedArrayBuffer(4))

  get workerData(): { state: SharedArrayBuffer; states: typeof ConnectionState } {
    return { state: this.word.buffer as SharedArrayBuffer, states: ConnectionState }
  }

  /** As the worker last set it (tests, diagnostics); closing counts as open. */
  get status(): 'starting' | 'open' | 'closed' {
    const v = Atomics.load(this.word, 0)
    return v === ConnectionState.Starting ? 'starting' : v === ConnectionState.Closed ? 'closed' : 'open'
  }

  /**
   * Returns once the worker's connections are closed: one that has not opened yet never
   * will; one that has is sent `message` (its cue to close them) and waited for, up to
   * `waitMs`. The worker handles the message on its own loop while this thread blocks.
   */
  closeSync(worker: Worker, message: unknown, waitMs = CLOSE_WAIT_MS): void {
    const was = Atomics.compareExchange(this.word, 0, ConnectionState.Starting, ConnectionState.Closed)
    if (was === ConnectionState.Starting || was === ConnectionState.Closed) return
    Atomics.compareExchange(this.word, 0, ConnectionState.Open, ConnectionState.Closing)
    worker.postMessage(message)
    Atomics.wait(this.word, 0, ConnectionState.Closing, waitMs)
  }
}
