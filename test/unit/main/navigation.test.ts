import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { hardenWebContents, type WebContentsLike } from '../../../src/main/security/harden'
import { safeExternalUrl } from '../../../src/main/security/navigation'
import { createOriginCheck } from '../../../src/main/security/origin'
import { MemoryLogger } from './fakes'

/** A webContents stand-in: real events, and the window-open handler kept for the test to call. */
class FakeWebContents extends EventEmitter {
  openHandler: ((details: { url: string }) => { action: 'deny' }) | null = null
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.openHandler = handler
  }
}

function hardened() {
  const contents = new FakeWebContents()
  const opened: string[] = []
  const logger = new MemoryLogger()
  hardenWebContents(contents as unknown as WebContentsLike, async (url) => void opened.push(url), logger)
  const navigate = (url: string): boolean => {
    let prevented = false
    contents.emit('will-navigate', { preventDefault: () => (prevented = true) }, url)
    return prevented
  }
  return { contents, opened, logger, navigate }
}

describe('navigation and new windows', () => {
  it.each([
    'https://docs.example.com/help',
    'http://intranet.local/wiki',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'smb://server/share',
    'file:///opt/callsight/out/renderer/index.html'
  ])('blocks navigating the window to %s', (url) => {
    const { navigate } = hardened()
    expect(navigate(url)).toBe(true)
  })

  it('opens http(s) links in the user browser, and nothing else', async () => {
    const { navigate, opened, logger } = hardened()
    navigate('https://docs.example.com/help?q=1')
    navigate('http://intranet.local/wiki')
    navigate('file:///etc/passwd')
    navigate('javascript:alert(1)')
    navigate('ms-settings:privacy')
    navigate('https://user:pw@evil.example.com/')
    await Promise.resolve()
    expect(opened).toEqual(['https://docs.example.com/help?q=1', 'http://intranet.local/wiki'])
    expect(logger.lines.filter((l) => l.message === 'Blocked a link that is not http(s)')).toHaveLength(4)
  })

  it('denies every window.open, handing http(s) targets to the browser', async () => {
    const { contents, opened } = hardened()
    expect(contents.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' })
    expect(contents.openHandler?.({ url: 'about:blank' })).toEqual({ action: 'deny' })
    expect(contents.openHandler?.({ url: 'file:///tmp/x.html' })).toEqual({ action: 'deny' })
    await Promise.resolve()
    expect(opened).toEqual(['https://example.com/'])
  })

  it('prevents attaching webviews', () => {
    const { contents } = hardened()
    let prevented = false
    contents.emit('will-attach-webview', { preventDefault: () => (prevented = true) })
    expect(prevented).toBe(true)
  })

  it('checks external URLs strictly', () => {
    expect(safeExternalUrl('https://example.com')).toBe('https://example.com/')
    expect(safeExternalUrl('HTTPS://Example.com/a b')).toBe('https://example.com/a%20b')
    expect(safeExternalUrl('https://' + 'a'.repeat(5000) + '.com')).toBeNull()
    expect(safeExternalUrl('not a url')).toBeNull()
    expect(safeExternalUrl('')).toBeNull()
    expect(safeExternalUrl('data:text/html,<script>alert(1)</script>')).toBeNull()
  })
})

describe('trusted renderer origin', () => {
  it('in a packaged app, trusts exactly the renderer index file (any hash or query)', () => {
    const trusted = createOriginCheck({ rendererIndex: '/opt/callsight/out/renderer/index.html', platform: 'linux' })
    expect(trusted('file:///opt/callsight/out/renderer/index.html')).toBe(true)
    expect(trusted('file:///opt/callsight/out/renderer/index.html#/search?q=x')).toBe(true)
    expect(trusted('file:///opt/callsight/out/renderer/other.html')).toBe(false)
    expect(trusted('file:///opt/callsight/out/renderer/../renderer/index.html')).toBe(true)
    expect(trusted('file:///home/user/Downloads/index.html')).toBe(false)
    expect(trusted('file://fileserver/opt/callsight/out/renderer/index.html')).toBe(false)
    expect(trusted('http://localhost:5173/')).toBe(false)
    expect(trusted('garbage')).toBe(false)
  })

  it('in development, trusts the dev server origin only', () => {
    const trusted = createOriginCheck({ devServerUrl: 'http://localhost:5173', rendererIndex: '/x/index.html' })
    expect(trusted('http://localhost:5173/')).toBe(true)
    expect(trusted('http://localhost:5173/#/sync')).toBe(true)
    expect(trusted('http://localhost:5174/')).toBe(false)
    expect(trusted('http://127.0.0.1:5173/')).toBe(false)
    expect(trusted('file:///x/index.html')).toBe(false)
  })
})
