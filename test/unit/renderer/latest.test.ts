import { describe, expect, it } from 'vitest'
import { latestOnly } from '../../../src/renderer/src/lib/latest'

/** A promise settled by hand, to make replies arrive in a chosen order. */
function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('latestOnly', () => {
  it('drops an earlier load that answers after a later one (the TrendChart values race)', async () => {
    const latest = latestOnly()
    const applied: string[] = []
    const first = deferred<string>()
    const second = deferred<string>()
    const a = latest.run(
      () => first.promise,
      (v) => applied.push(v),
      () => applied.push('error')
    )
    const b = latest.run(
      () => second.promise,
      (v) => applied.push(v),
      () => applied.push('error')
    )
    second.resolve('values of the column shown')
    await b
    first.resolve('values of the column left')
    await a
    expect(applied).toEqual(['values of the column shown'])
  })

  it('reports the latest failure, and drops a superseded one', async () => {
    const latest = latestOnly()
    const failed: unknown[] = []
    const old = deferred<number>()
    const a = latest.run(
      () => old.promise,
      () => undefined,
      (e) => failed.push(e)
    )
    const b = latest.run(
      () => Promise.reject(new Error('now')),
      () => undefined,
      (e) => failed.push(e)
    )
    await b
    old.reject(new Error('stale'))
    await a
    expect(failed.map((e) => (e as Error).message)).toEqual(['now'])
  })

  it('drop() supersedes a load in flight with nothing new (a numeric column has no values to load)', async () => {
    const latest = latestOnly()
    const applied: number[] = []
    const pending = deferred<number>()
    const a = latest.run(
      () => pending.promise,
      (v) => applied.push(v),
      () => undefined
    )
    latest.drop()
    pending.resolve(1)
    await a
    expect(applied).toEqual([])
  })
})
