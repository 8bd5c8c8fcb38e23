import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createExportDialogs, type ShowSaveDialog } from '../../../src/main/adapters/dialogs'
import { nativeBindingPath } from '../../../src/main/native'

describe('native binding path', () => {
  const facts = { abi: '140', resourcesPath: '/opt/Callsight/resources', appRoot: '/work/callsight' }

  it('finds the Electron-ABI build in the repository in development', () => {
    const seen: string[] = []
    const path = nativeBindingPath({ ...facts, packaged: false, exists: (p) => (seen.push(p), true) })
    expect(path).toBe(join('/work/callsight', 'native', 'electron-140', 'better_sqlite3.node'))
    expect(seen).toEqual([path])
  })

  it('finds it under resources when packaged', () => {
    expect(nativeBindingPath({ ...facts, packaged: true, exists: () => true })).toBe(
      join('/opt/Callsight/resources', 'native', 'electron-140', 'better_sqlite3.node')
    )
  })

  it('is undefined when no such build exists', () => {
    expect(nativeBindingPath({ ...facts, packaged: false, exists: () => false })).toBeUndefined()
  })
})

describe('export dialog', () => {
  function dialogs(answer: { canceled: boolean; filePath?: string }) {
    const asked: Parameters<ShowSaveDialog>[0][] = []
    const d = createExportDialogs(
      async (o) => (asked.push(o), answer),
      () => '/home/ayse/Documents'
    )
    return { d, asked }
  }

  it('proposes the name in the documents folder with the format extension, and returns the choice', async () => {
    const { d, asked } = dialogs({ canceled: false, filePath: '/tmp/out.xlsx' })
    expect(await d.chooseExportFile('calls-2026-01-02', 'xlsx')).toBe('/tmp/out.xlsx')
    expect(asked[0]).toMatchObject({
      defaultPath: join('/home/ayse/Documents', 'calls-2026-01-02.xlsx'),
      filters: [{ name: 'Excel workbook', extensions: ['xlsx'] }]
    })
  })

  it('keeps a name that already has the extension, and drops any folder in it', async () => {
    const { d, asked } = dialogs({ canceled: false, filePath: '/x.csv' })
    await d.chooseExportFile('../../etc/calls.csv', 'csv')
    expect(asked[0]?.defaultPath).toBe(join('/home/ayse/Documents', 'calls.csv'))
  })

  it('returns null when the user cancels', async () => {
    const { d } = dialogs({ canceled: true })
    expect(await d.chooseExportFile('calls', 'json')).toBeNull()
  })
})

describe('a finished export opened through the shell', () => {
  it('opens the file and shows it in its folder, and says when the system could not open it', async () => {
    const calls: string[] = []
    const d = createExportDialogs(
      async () => ({ canceled: true }),
      () => '/home/ayse',
      {
        openPath: async (p) => (calls.push(`open ${p}`), p.endsWith('.xyz') ? 'No application is associated' : ''),
        showItemInFolder: (p) => void calls.push(`show ${p}`)
      }
    )
    await d.openFile!('/home/ayse/calls.xlsx')
    d.showInFolder!('/home/ayse/calls.xlsx')
    expect(calls).toEqual(['open /home/ayse/calls.xlsx', 'show /home/ayse/calls.xlsx'])
    await expect(d.openFile!('/home/ayse/calls.xyz')).rejects.toThrow(/No application/)
  })

  it('offers no file actions without a shell (browser mode keeps the download)', () => {
    const d = createExportDialogs(
      async () => ({ canceled: true }),
      () => '/home/ayse'
    )
    expect(d.openFile).toBeUndefined()
    expect(d.showInFolder).toBeUndefined()
  })
})
