import { describe, it, expect } from 'vitest'
import { createAesGcmCipher } from '../../../../src/core/crypto/aes-cipher'
import { TokenVault } from '../../../../src/core/session'
import { MemoryStore } from '../../../../src/core/platform/node'
import type { Cipher } from '../../../../src/core/platform'
import { randomBytes } from 'node:crypto'

const tokens = {
  accessToken: 'ACCESS-secret-1',
  refreshToken: 'REFRESH-secret-1',
  expiresAt: 1_800_000_000_000,
  scope: 'Service.Public offline_access'
}

describe('AES-256-GCM cipher', () => {
  it('round-trips with a raw key and with a passphrase, and reports itself secure', async () => {
    for (const key of [randomBytes(32), 'correct horse battery staple']) {
      const c = createAesGcmCipher(key)
      expect(c).toMatchObject({ secure: true, backend: 'aes-256-gcm' })
      const sealed = await c.encrypt('hello şğü')
      expect(Buffer.from(sealed).toString('utf8')).not.toContain('hello')
      expect(await c.decrypt(sealed)).toBe('hello şğü')
      // A fresh IV (and salt) every time.
      expect(Buffer.from(await c.encrypt('hello şğü')).equals(Buffer.from(sealed))).toBe(false)
    }
  })

  it('refuses tampered data and the wrong key', async () => {
    const c = createAesGcmCipher(randomBytes(32))
    const sealed = Buffer.from(await c.encrypt('x'.repeat(40)))
    sealed[sealed.length - 1]! ^= 1
    await expect(c.decrypt(sealed)).rejects.toThrow()
    const other = createAesGcmCipher(randomBytes(32))
    await expect(other.decrypt(await c.encrypt('y'))).rejects.toThrow()
    await expect(createAesGcmCipher('a').decrypt(await createAesGcmCipher('b').encrypt('z'))).rejects.toThrow()
    expect(() => createAesGcmCipher(Buffer.alloc(16))).toThrow(RangeError)
  })
})

describe('TokenVault', () => {
  it('persists ciphertext only, with the backend beside it, and loads it back in a new vault', async () => {
    const store = new MemoryStore()
    const cipher = createAesGcmCipher(randomBytes(32))
    await new TokenVault(store, cipher, 'acct-1').save(tokens)
    const stored = JSON.stringify(store.get('tokens:acct-1'))
    expect(stored).not.toContain('secret')
    expect(store.get('tokens:acct-1')).toMatchObject({ v: 1, backend: 'aes-256-gcm' })
    expect(await new TokenVault(store, cipher, 'acct-1').load()).toEqual(tokens)
    expect(await new TokenVault(store, cipher, 'acct-2').load()).toBeNull()
  })

  it('drops tokens sealed by another backend or that no longer decrypt', async () => {
    const store = new MemoryStore()
    await new TokenVault(store, createAesGcmCipher(randomBytes(32)), 'a').save(tokens)
    const renamed: Cipher = { ...createAesGcmCipher(randomBytes(32)), backend: 'gnome_libsecret' }
    expect(await new TokenVault(store, renamed, 'a').load()).toBeNull()
    expect(store.get('tokens:a')).toBeUndefined()

    await new TokenVault(store, createAesGcmCipher(randomBytes(32)), 'a').save(tokens)
    expect(await new TokenVault(store, createAesGcmCipher(randomBytes(32)), 'a').load()).toBeNull()
    expect(store.get('tokens:a')).toBeUndefined()

    store.set('tokens:a', { v: 1, backend: 'aes-256-gcm', data: 'bm9wZQ==' })
    expect(await new TokenVault(store, createAesGcmCipher(randomBytes(32)), 'a').load()).toBeNull()
  })

  it('refuses to persist with an insecure cipher unless told to keep tokens in memory', async () => {
    const weak: Cipher = {
      backend: 'basic_text',
      secure: false,
      encrypt: async (s) => Buffer.from(s),
      decrypt: async (d) => Buffer.from(d).toString()
    }
    const store = new MemoryStore()
    await expect(new TokenVault(store, weak, 'a').save(tokens)).rejects.toMatchObject({
      code: 'Storage',
      message: 'Sign-in tokens were not saved, because this computer offers no secure place to keep them.'
    })
    expect(store.get('tokens:a')).toBeUndefined()
    const mem = new TokenVault(store, weak, 'a', { insecure: 'memoryOnly' })
    await mem.save(tokens)
    expect(mem.persists).toBe(false)
    expect(store.get('tokens:a')).toBeUndefined()
    expect(await mem.load()).toEqual(tokens)
    mem.clear()
    expect(await mem.load()).toBeNull()
  })
})
