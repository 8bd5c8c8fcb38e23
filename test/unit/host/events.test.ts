import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { ipcEvent } from '../../../src/shared/ipc/names'
import { createEventSink, type EventTargetLike } from '../../../src/host/ipc/events'
import { followTheme, type NativeThemeLike } from '../../../src/main/window/theme'
import { MemoryLogger } from '../main/fakes'

class FakeTarget implements EventTargetLike {
  sent: [string, unknown][] = []
  destroyed = false
  isDestroyed(): boolean {
    return this.destroyed
  }
  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload])
  }
}

describe('event sink', () => {
  it('sends contract events on their namespaced channel, stripped to the contract', () => {
    const target = new FakeTarget()
    const sink = createEventSink(() => target)
    const state = {
      status: 'signedOut' as const,
      account: null,
      tokensPersisted: false,
      notice: 'No keyring',
      noticeCode: 'noKeyring' as const,
      refreshToken: 'r-1'
    }
    sink.emit('session.changed', state)
    sink.emit('connectivity.changed', { online: true, checkedAt: 5 })
    expect(target.sent).toEqual([
      [
        ipcEvent('session.changed'),
        { status: 'signedOut', account: null, tokensPersisted: false, notice: 'No keyring', noticeCode: 'noKeyring' }
      ],
      [ipcEvent('connectivity.changed'), { online: true, checkedAt: 5 }]
    ])
  })

  it('drops and logs a payload outside the contract instead of throwing', () => {
    const target = new FakeTarget()
    const logger = new MemoryLogger()
    const sink = createEventSink(() => target, logger)
    expect(() => sink.emit('menu.command', { command: 'formatDisk' as 'focusSearch' })).not.toThrow()
    expect(target.sent).toEqual([])
    expect(logger.lines[0]?.level).toBe('error')
  })

  it('drops events while there is no window, or a destroyed one', () => {
    const target = new FakeTarget()
    let current: FakeTarget | null = null
    const sink = createEventSink(() => current)
    sink.emit('theme.changed', { dark: true })
    current = target
    target.destroyed = true
    sink.emit('theme.changed', { dark: true })
    expect(target.sent).toEqual([])
    target.destroyed = false
    sink.emit('theme.changed', { dark: false })
    expect(target.sent).toEqual([[ipcEvent('theme.changed'), { dark: false }]])
  })
})

describe('theme following', () => {
  it('emits theme.changed when the effective theme flips, once per flip, until stopped', () => {
    const theme = Object.assign(new EventEmitter(), { shouldUseDarkColors: false })
    const target = new FakeTarget()
    const stop = followTheme(
      theme as unknown as NativeThemeLike,
      createEventSink(() => target)
    )
    theme.emit('updated')
    theme.shouldUseDarkColors = true
    theme.emit('updated')
    theme.emit('updated')
    theme.shouldUseDarkColors = false
    theme.emit('updated')
    stop()
    theme.shouldUseDarkColors = true
    theme.emit('updated')
    expect(target.sent.map(([, p]) => p)).toEqual([{ dark: true }, { dark: false }])
  })
})
