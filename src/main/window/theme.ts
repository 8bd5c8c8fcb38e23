import type { EventSink } from '../../core/app/host-ports'

/** The part of nativeTheme the app follows. */
export interface NativeThemeLike {
  readonly shouldUseDarkColors: boolean
  on(event: 'updated', listener: () => void): unknown
  removeListener(event: 'updated', listener: () => void): unknown
}

/** Tells the renderer whenever the effective theme flips (OS change or the user's override). */
export function followTheme(theme: NativeThemeLike, events: EventSink): () => void {
  let last = theme.shouldUseDarkColors
  const onUpdated = (): void => {
    const dark = theme.shouldUseDarkColors
    if (dark === last) return
    last = dark
    events.emit('theme.changed', { dark })
  }
  theme.on('updated', onUpdated)
  return () => theme.removeListener('updated', onUpdated)
}
