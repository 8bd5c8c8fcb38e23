import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'

/** Insight's result-set total, as its header states it. */
export async function insightTotal(page: Page): Promise<number> {
  const el = page.getByTestId('insight-total')
  await el.waitFor({ timeout: 15_000 })
  return Number(await el.getAttribute('data-total'))
}

/** Search's total once the count is ready. */
export async function searchTotal(page: Page): Promise<number> {
  const el = page.getByTestId('result-count')
  await expect.poll(() => el.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
  return Number(await el.getAttribute('data-total'))
}

/** Clicks the middle of column `i` of `n` in a chart's plot (the chart's grid insets). */
export async function clickColumn(
  canvas: Locator,
  i: number,
  n: number,
  inset = { left: 56, right: 16, top: 16, bottom: 56 }
): Promise<void> {
  const box = (await canvas.boundingBox())!
  const width = box.width - inset.left - inset.right
  await canvas.click({ position: { x: inset.left + ((i + 0.5) * width) / n, y: inset.top + (box.height - inset.top - inset.bottom) / 2 } })
}
