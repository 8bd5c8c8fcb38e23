import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { JsonFileStore } from '../../../../src/core/platform/json-file-store'

describe('JsonFileStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'callsight-store-'))

  it('persists across instances and leaves no temporary files', () => {
    const file = join(dir, 'a.json')
    const a = new JsonFileStore(file)
    a.set('x', { n: 1 })
    a.set('y', 'two')
    a.delete('y')
    expect(new JsonFileStore(file).get('x')).toEqual({ n: 1 })
    expect(new JsonFileStore(file).get('y')).toBeUndefined()
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  it('keeps an unreadable file aside and starts empty instead of crashing', () => {
    const file = join(dir, 'b.json')
    writeFileSync(file, '{"half": ')
    const s = new JsonFileStore(file)
    expect(s.get('half')).toBeUndefined()
    expect(readFileSync(`${file}.corrupt`, 'utf8')).toBe('{"half": ')
    s.set('ok', true)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ok: true })
    expect(existsSync(file)).toBe(true)
  })
})
