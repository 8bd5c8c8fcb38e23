import { computed, type ComputedRef } from 'vue'
import type VChart from 'vue-echarts'
import { formatCount } from './format'
import { savePng, chartFileName } from './chartExport'

/**
 * What every Insight chart shares: colours from the theme (light or dark), axes whose numbers
 * go through Intl in the UI language ("1.400" in Turkish), the category under a click, and
 * the PNG export.
 */

export type ChartRef = InstanceType<typeof VChart> | null

export interface ChartPalette {
  primary: string
  second: string
  text: string
  grid: string
  background: string
}

export function useChartTheme(app: { dark: boolean; locale: string }): {
  palette: ComputedRef<ChartPalette>
  countText: (v: unknown) => string
  axisStyle: () => Record<string, unknown>
  exportPng: (chart: ChartRef, title: string) => void
} {
  const palette = computed(() => {
    const css = getComputedStyle(document.documentElement)
    const v = (name: string, fallback: string): string => css.getPropertyValue(name).trim() || fallback
    void app.dark
    return {
      primary: v('--p-primary-color', '#0369a1'),
      second: v('--p-orange-500', '#f97316'),
      text: v('--p-text-muted-color', '#64748b'),
      grid: v('--p-content-border-color', '#e2e8f0'),
      background: v('--app-panel', '#ffffff')
    }
  })
  const countText = (v: unknown): string => (typeof v === 'number' ? formatCount(v, app.locale) : String(v))
  const axisStyle = (): Record<string, unknown> => ({
    axisLabel: { color: palette.value.text, fontSize: 11, formatter: countText },
    axisLine: { lineStyle: { color: palette.value.grid } },
    splitLine: { lineStyle: { color: palette.value.grid } }
  })
  const exportPng = (chart: ChartRef, title: string): void => {
    const url = chart?.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: palette.value.background })
    if (url) savePng(url, chartFileName(title, 'png'))
  }
  return { palette, countText, axisStyle, exportPng }
}

export type ZrClick = { offsetX: number; offsetY: number }

/**
 * The category (day or value) under a click anywhere in the plot's column, not only on the
 * line's small symbol or a short bar: "click a day" means the whole day.
 */
export function categoryAt(chart: ChartRef, e: ZrClick): number | null {
  const point = [e.offsetX, e.offsetY]
  if (!chart || !chart.containPixel({ gridIndex: 0 }, point)) return null
  const index = chart.convertFromPixel({ gridIndex: 0 }, point) as unknown
  const i = Array.isArray(index) ? Number(index[0]) : Number(index)
  return Number.isInteger(i) && i >= 0 ? i : null
}
