import { randomBytes } from 'node:crypto'
import { createWriteStream, type WriteStream } from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { CallsightError, isAbortError } from '../errors'
import { PRIVATE_FILE_MODE } from '../platform/private-files'

/**
 * Writes a file so that it either appears complete or not at all: the content goes to a
 * hidden temporary name in the same folder (so the rename stays on one file system and is
 * atomic), is flushed to disk (unless `durable` is false), and only then takes the final name. Any failure or
 * cancellation removes the temporary file.
 */
export async function writeAtomically<T>(
  file: string,
  write: (out: WriteStream) => Promise<T>,
  opts: { durable?: boolean } = {}
): Promise<T> {
  const durable = opts.durable ?? true
  const target = resolve(file)
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`)
  // 'wx': never follow or reuse something already at the temporary name.
  // Large writes: every write is a trip to the thread pool, and the default 16 KiB makes thousands.
  // 0600: an export holds call data, wherever the user puts it; they can widen it themselves.
  const out = createWriteStream(temp, { flags: 'wx', mode: PRIVATE_FILE_MODE, highWaterMark: 1 << 20 })
  // Errors arrive through the writer's promise or finished(); this keeps a late one from going unhandled.
  out.on('error', () => undefined)
  try {
    // A missing or read-only folder fails here, before any record is read.
    await opened(out)
    const value = await write(out)
    if (!out.writableEnded) out.end()
    await finished(out)
    if (durable) await syncFile(temp)
    await rename(temp, target)
    if (durable) await syncFolder(dirname(target))
    return value
  } catch (e) {
    out.destroy()
    await closed(out)
    await rm(temp, { force: true }).catch(() => undefined)
    throw asExportError(e, target)
  }
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Makes the rename itself durable. Not every platform can open a folder (Windows cannot): best effort. */
async function syncFolder(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // The file is complete and renamed either way.
  }
}

function opened(stream: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('open', () => resolve())
    stream.once('error', reject)
  })
}

/** Rejects when the stream fails; never resolves otherwise. For racing against work that would wait forever. */
export function failureOf(stream: Writable): Promise<never> {
  const failed = new Promise<never>((_resolve, reject) => {
    if (stream.errored) return reject(stream.errored)
    stream.once('error', reject)
  })
  failed.catch(() => undefined)
  return failed
}

/** Windows cannot remove a file that is still open, so wait for the descriptor to go. */
function closed(stream: WriteStream): Promise<void> {
  if (stream.closed) return Promise.resolve()
  return new Promise((done) => stream.once('close', () => done()))
}

const REASONS: Record<string, string> = {
  ENOSPC: 'there is not enough space on the disk',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'Callsight may not write to that folder',
  EPERM: 'Callsight may not write to that folder',
  EROFS: 'the disk is read-only',
  ENOENT: 'the folder does not exist',
  ENOTDIR: 'the folder does not exist',
  EISDIR: 'a folder already has that name',
  EBUSY: 'the file is in use by another program',
  EMFILE: 'too many files are open'
}

export function asExportError(e: unknown, target: string): CallsightError {
  if (isAbortError(e)) return new CallsightError('Cancelled', 'The export was cancelled; no file was written.')
  if (e instanceof CallsightError) return e
  const code = typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : ''
  const reason = REASONS[code] ?? 'the file could not be written'
  return new CallsightError('Storage', `The export to ${target} failed: ${reason}. No file was written.`, {
    hint: code in REASONS ? undefined : 'Try another folder, or check the disk.',
    cause: e
  })
}
