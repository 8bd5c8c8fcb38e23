import { describe, expect, it } from 'vitest'
import { centered, clampBounds, MIN_SIZE, type Rect } from '../../../src/main/window/bounds'

const laptop: Rect = { x: 0, y: 0, width: 1440, height: 875 }
const rightMonitor: Rect = { x: 1440, y: 0, width: 2560, height: 1400 }
const leftMonitor: Rect = { x: -1920, y: 100, width: 1920, height: 1040 }

describe('window bounds', () => {
  it('opens centred on the primary display the first time', () => {
    expect(clampBounds(null, [laptop], laptop)).toEqual({ x: 80, y: 38, width: 1280, height: 800 })
  })

  it('keeps saved bounds that fit where they are', () => {
    const saved = { x: 1600, y: 50, width: 1600, height: 1000 }
    expect(clampBounds(saved, [laptop, rightMonitor], laptop)).toEqual(saved)
  })

  it('recentres a window whose monitor has been unplugged', () => {
    const saved = { x: 1600, y: 50, width: 1600, height: 1000 }
    expect(clampBounds(saved, [laptop], laptop)).toEqual(centered(laptop))
  })

  it('shrinks and moves a window larger than its display into it', () => {
    const saved = { x: 1500, y: -40, width: 3000, height: 2000 }
    expect(clampBounds(saved, [laptop, rightMonitor], laptop)).toEqual({ x: 1440, y: 0, width: 2560, height: 1400 })
  })

  it('pulls a window hanging off the edge back onto the display it mostly covers', () => {
    const saved = { x: -1000, y: 900, width: 1200, height: 800 }
    const out = clampBounds(saved, [laptop, leftMonitor], laptop)
    expect(out).toEqual({ x: -1200, y: 340, width: 1200, height: 800 })
  })

  it('recentres a window with only a sliver left on screen', () => {
    const saved = { x: 1400, y: 0, width: 1000, height: 800 }
    expect(clampBounds(saved, [laptop], laptop)).toEqual(centered(laptop))
  })

  it('grows a saved window below the minimum size', () => {
    const out = clampBounds({ x: 10, y: 10, width: 200, height: 100 }, [laptop], laptop)
    expect(out).toEqual({ x: 10, y: 10, width: MIN_SIZE.width, height: MIN_SIZE.height })
  })

  it('ignores garbage in the saved state', () => {
    expect(clampBounds({ x: Number.NaN, y: 0, width: 10, height: 10 }, [laptop], laptop)).toEqual(centered(laptop))
    expect(clampBounds({ x: 0, y: 0, width: -5, height: 10 } as Rect, [laptop], laptop)).toEqual(centered(laptop))
  })

  it('fits a small display entirely', () => {
    const tiny: Rect = { x: 0, y: 0, width: 1024, height: 600 }
    expect(clampBounds(null, [tiny], tiny)).toEqual({ x: 0, y: 0, width: 1024, height: 600 })
    expect(clampBounds({ x: 0, y: 0, width: 1280, height: 800 }, [tiny], tiny)).toEqual({ x: 0, y: 0, width: 1024, height: 600 })
  })
})
