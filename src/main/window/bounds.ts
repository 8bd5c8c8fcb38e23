import { z } from 'zod'

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export const Rect = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().positive(),
  height: z.number().int().positive()
})
export const WindowState = z.object({ bounds: Rect, maximized: z.boolean().default(false) })
export type WindowState = z.infer<typeof WindowState>

export const DEFAULT_SIZE = { width: 1280, height: 800 }
export const MIN_SIZE = { width: 800, height: 560 }
/** How much of a saved window must still be on some display to keep its place. */
const MIN_VISIBLE = { width: 120, height: 80 }

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)
  return { width: Math.max(0, width), height: Math.max(0, height) }
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(Math.max(v, lo), Math.max(lo, hi))

export function centered(area: Rect, size = DEFAULT_SIZE): Rect {
  const width = Math.min(size.width, area.width)
  const height = Math.min(size.height, area.height)
  return {
    x: area.x + Math.round((area.width - width) / 2),
    y: area.y + Math.round((area.height - height) / 2),
    width,
    height
  }
}

/**
 * Where to open the window: the saved bounds, moved and shrunk to fit the display they
 * mostly sit on now. A window saved on a monitor that is gone, or too far off every
 * screen to grab, opens centred on the primary display instead.
 */
export function clampBounds(saved: Rect | null | undefined, workAreas: readonly Rect[], primary: Rect): Rect {
  const parsed = Rect.safeParse(saved)
  if (!parsed.success) return centered(primary)
  const s = parsed.data

  let best: Rect | null = null
  let bestArea = 0
  for (const area of workAreas) {
    const o = overlap(s, area)
    if (o.width >= Math.min(MIN_VISIBLE.width, s.width) && o.height >= Math.min(MIN_VISIBLE.height, s.height)) {
      if (o.width * o.height > bestArea) {
        best = area
        bestArea = o.width * o.height
      }
    }
  }
  if (best === null) return centered(primary)

  const width = Math.min(Math.max(s.width, MIN_SIZE.width), best.width)
  const height = Math.min(Math.max(s.height, MIN_SIZE.height), best.height)
  return {
    x: clamp(s.x, best.x, best.x + best.width - width),
    y: clamp(s.y, best.y, best.y + best.height - height),
    width,
    height
  }
}
