import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncDemoWeek } from './support/demo-week'
import { invokeInPage, launchApp, type LaunchedApp } from './support/harness'

// Removing several calls from a review list at once, in Chromium over `callsight serve --demo`:
// the list's calls in review mode (L), ticked with the keyboard and a shift-click, removed
// after the same question the Del key asks; cancelling it removes nothing.

interface ListItems {
  list: { size: number }
  items: Array<{ callId: string }>
}

describe('review mode: removing several calls from the list', () => {
  let app: LaunchedApp
  let listId = ''
  let before: string[] = []

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  const all = async (): Promise<string[]> =>
    (await invokeInPage<ListItems>(app.page, 'reviewLists.items', { id: listId, offset: 0, limit: 1000 })).items.map((i) => i.callId)

  it('syncs the demo and makes a list of eight calls', async () => {
    await syncDemoWeek(app.page)
    const page = await invokeInPage<{ rows: Array<{ callId: string }> }>(app.page, 'search.page', {
      query: { results: 'all' },
      offset: 0,
      limit: 8
    })
    const made = await invokeInPage<{ id: string; size: number }>(app.page, 'reviewLists.create', {
      name: 'Toplu çıkar',
      source: { kind: 'ids', ids: page.rows.map((r) => r.callId) }
    })
    expect(made.size).toBe(8)
    listId = made.id
    before = await all()
  })

  it('lists the calls in order, ticks three with Space and a shift-click, and cancelling removes nothing', async () => {
    const { page } = app
    await page.getByTestId('nav-review').click()
    await page.getByTestId('review-list-Toplu çıkar').click()
    const call = page.getByTestId('review-call')
    await expect.poll(() => call.getAttribute('data-call-id'), { timeout: 15_000 }).toBe(before[0])

    await page.keyboard.press('l')
    const rows = page.getByTestId('list-calls-row')
    await expect.poll(() => rows.count()).toBe(8)
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-call-id')))).toEqual(before)
    // Each row has its time and its title as text.
    expect((await rows.nth(0).locator('.title').textContent())?.trim()).not.toBe('')
    expect(await rows.nth(0).getAttribute('data-cursor')).toBe('true')
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)).toBe('list-calls-rows')

    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Space')
    await rows
      .nth(3)
      .getByTestId('list-calls-tick')
      .click({ modifiers: ['Shift'] })
    const ticked = async (): Promise<string[]> =>
      rows.evaluateAll((els) => els.filter((e) => e.getAttribute('aria-selected') === 'true').map((e) => e.getAttribute('data-call-id')!))
    await expect.poll(ticked).toEqual(before.slice(1, 4))
    expect(await page.getByTestId('list-calls-count').textContent()).toBe('3 selected')

    // Del in the list asks about the ticked calls; Escape keeps them all.
    await page.getByTestId('list-calls-rows').focus()
    await page.keyboard.press('Delete')
    const confirm = page.getByTestId('review-remove-confirm')
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain('Remove 3 calls from the list “Toplu çıkar”?')
    await page.keyboard.press('Escape')
    await expect.poll(() => confirm.count()).toBe(0)
    expect(await all()).toEqual(before)
    await page.getByTestId('list-calls-remove').click()
    await confirm.waitFor()
    await page.getByTestId('review-remove-no').click()
    await expect.poll(() => confirm.count()).toBe(0)
    expect(await all()).toEqual(before)
    expect(await ticked()).toEqual(before.slice(1, 4))
  })

  it('removes the ticked calls: the list, the panel and the walk lose them', async () => {
    const { page } = app
    const rows = page.getByTestId('list-calls-row')
    const call = page.getByTestId('review-call')
    const kept = before.filter((_, i) => i < 1 || i > 3)

    await page.getByTestId('list-calls-rows').focus()
    await page.keyboard.press('Delete')
    const confirm = page.getByTestId('review-remove-confirm')
    await confirm.waitFor()
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)).toBe('review-remove-yes')
    await page.keyboard.press('Enter')
    await expect.poll(all).toEqual(kept)
    await expect.poll(() => rows.count()).toBe(5)
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-call-id')))).toEqual(kept)
    expect(await page.getByTestId('list-calls-count').textContent()).toBe('0 selected')
    expect(await page.getByTestId('review-removal-notice').textContent()).toContain('Removed 3 calls from “Toplu çıkar”.')
    expect((await invokeInPage<Array<{ id: string; size: number }>>(page, 'reviewLists.list', {})).find((l) => l.id === listId)?.size).toBe(
      5
    )
    await expect.poll(() => page.getByTestId('review-list-Toplu çıkar').textContent()).toContain('of 5 reviewed')
    // Review mode stays on the call it showed, and walking the list meets none of the removed.
    expect(await call.getAttribute('data-call-id')).toBe(before[0])
    expect(await page.getByTestId('review-position').textContent()).toBe('Call 1 of 5')
    const walked = [before[0]]
    for (let i = 1; i < kept.length; i++) {
      await page.keyboard.press('j')
      await expect.poll(() => call.getAttribute('data-call-id')).toBe(kept[i])
      walked.push(kept[i])
    }
    expect(walked).toEqual(kept)

    // A click on a row opens that call; "select all" ticks every one and again none.
    await rows.nth(2).locator('.title').click()
    await expect.poll(() => call.getAttribute('data-call-id')).toBe(kept[2])
    await page.getByTestId('list-calls-all').click()
    expect(await page.getByTestId('list-calls-count').textContent()).toBe('5 selected')
    await page.getByTestId('list-calls-all').click()
    expect(await page.getByTestId('list-calls-count').textContent()).toBe('0 selected')
    await app.screenshot('65-review-list-calls-en')

    // Escape in the list closes it.
    await page.getByTestId('list-calls-rows').focus()
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByTestId('list-calls-panel').count()).toBe(0)
    expect(app.pageErrors).toEqual([])
  })

  it('lists the key in the shortcuts dialog', async () => {
    const { page } = app
    await page.locator('body').click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('?')
    const dialog = page.getByTestId('shortcuts-dialog')
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain('Review mode: show or hide the calls in the list')
    await page.keyboard.press('Escape')
  })
})
