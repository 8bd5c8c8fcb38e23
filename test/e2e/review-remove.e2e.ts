import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncDemoWeek } from './support/demo-week'
import { invokeInPage, launchApp, type LaunchedApp } from './support/harness'

// Removing the call shown from a review list, in Chromium over `callsight serve --demo`: the
// Del key asks (naming the list and the count), Escape keeps the call, Enter removes it and
// review mode moves on to the call that took its place; the button does the same.

interface ListItems {
  list: { size: number }
  items: Array<{ callId: string }>
}

describe('review mode: removing a call from the list', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('syncs the demo', async () => {
    await syncDemoWeek(app.page)
  })

  it('asks with the list and the count, keeps the call on Escape, removes it on Enter and moves on', async () => {
    const { page } = app
    await page.getByTestId('nav-search').click()
    await page.getByTestId('search-input').fill('fatura')
    await expect.poll(() => page.getByTestId('result-count').getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')

    await page.getByTestId('nav-review').click()
    await page.getByTestId('review-list-name').fill('Fatura temizlik')
    await page.getByTestId('review-sample-kind').selectOption('perDay')
    await page.getByTestId('review-sample-value').fill('1')
    await page.getByTestId('review-create').click()
    const call = page.getByTestId('review-call')
    await call.waitFor({ timeout: 15_000 })
    const lists = await invokeInPage<Array<{ id: string; name: string; size: number }>>(page, 'reviewLists.list', {})
    const list = lists.find((l) => l.name === 'Fatura temizlik')!
    expect(list.size).toBeGreaterThanOrEqual(4)
    const all = async (): Promise<string[]> =>
      (await invokeInPage<ListItems>(page, 'reviewLists.items', { id: list.id, offset: 0, limit: 1000 })).items.map((i) => i.callId)
    const before = await all()

    // The second call, so the one that takes its place is the third.
    await page.keyboard.press('j')
    await expect.poll(() => call.getAttribute('data-call-id')).toBe(before[1])

    const confirm = page.getByTestId('review-remove-confirm')
    await page.keyboard.press('Delete')
    await confirm.waitFor()
    expect(await confirm.getAttribute('role')).toBe('alertdialog')
    expect(await confirm.textContent()).toContain('Remove 1 call from the list “Fatura temizlik”?')
    // Review keys do nothing while it asks.
    await page.keyboard.press('j')
    expect(await call.getAttribute('data-call-id')).toBe(before[1])
    await page.keyboard.press('Escape')
    await expect.poll(() => confirm.count()).toBe(0)
    expect(await all()).toEqual(before)

    await page.keyboard.press('Delete')
    await confirm.waitFor()
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)).toBe('review-remove-yes')
    await page.keyboard.press('Enter')
    await expect.poll(() => call.getAttribute('data-call-id')).toBe(before[2])
    expect(await all()).toEqual(before.filter((c) => c !== before[1]))
    expect(await page.getByTestId('review-position').textContent()).toBe(`Call 2 of ${before.length - 1}`)
    expect(await page.getByTestId('review-removal-notice').textContent()).toContain('Removed 1 call from “Fatura temizlik”.')
    await expect.poll(() => page.getByTestId('review-list-Fatura temizlik').textContent()).toContain(`of ${before.length - 1} reviewed`)
    // The annotation stays: removing from a list is not deleting the review.
    expect(await invokeInPage(page, 'annotations.get', { callId: before[1] })).toBeNull()

    // The button asks the same way.
    await page.getByTestId('review-remove-call').click()
    await confirm.waitFor()
    await page.getByTestId('review-remove-yes').click()
    await expect.poll(() => call.getAttribute('data-call-id')).toBe(before[3])
    expect(await all()).toEqual(before.filter((c) => c !== before[1] && c !== before[2]))
    await app.screenshot('64-review-remove-call-en')
    expect(app.pageErrors).toEqual([])
  })

  it('lists the key in the shortcuts dialog', async () => {
    const { page } = app
    await page.locator('body').click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('?')
    const dialog = page.getByTestId('shortcuts-dialog')
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain('Review mode: remove the call from the list (asks first)')
    await page.keyboard.press('Escape')
  })
})
