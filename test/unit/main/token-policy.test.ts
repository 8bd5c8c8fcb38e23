import { describe, expect, it } from 'vitest'
import { CallsightError } from '../../../src/core/errors'
import { createSafeStorageCipher, type SafeStorageLike } from '../../../src/main/adapters/cipher'
import { decideTokenPolicy, NOTICE_ENCRYPTION_UNAVAILABLE, NOTICE_NO_KEYRING } from '../../../src/main/adapters/token-policy'

/** safeStorage with a reversible transform standing in for the OS keyring; counts writes. */
function fakeSafeStorage(backend: string, available: boolean) {
  const calls = { encrypt: 0, decrypt: 0 }
  const storage: SafeStorageLike = {
    isAsyncEncryptionAvailable: async () => available,
    getSelectedStorageBackend: () => backend,
    encryptStringAsync: async (s) => {
      calls.encrypt++
      return Buffer.from(`v11${Buffer.from(s).toString('base64')}`)
    },
    decryptStringAsync: async (b) => {
      calls.decrypt++
      const text = b.toString()
      if (!text.startsWith('v11')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.')
      return { result: Buffer.from(text.slice(3), 'base64').toString(), shouldReEncrypt: false }
    }
  }
  return { storage, calls }
}

describe('token storage policy', () => {
  it.each(['basic_text', 'unknown'])('keeps tokens in memory on Linux with backend %s, and says why', (backend) => {
    expect(decideTokenPolicy({ platform: 'linux', available: true, linuxBackend: backend })).toEqual({
      persist: false,
      backend: `electron-safestorage:${backend}`,
      notice: NOTICE_NO_KEYRING,
      noticeCode: 'noKeyring'
    })
  })

  it.each(['gnome_libsecret', 'kwallet5', 'kwallet6'])('persists tokens with the %s keyring', (backend) => {
    expect(decideTokenPolicy({ platform: 'linux', available: true, linuxBackend: backend })).toEqual({
      persist: true,
      backend: `electron-safestorage:${backend}`,
      notice: null,
      noticeCode: null
    })
  })

  it.each([
    ['darwin', 'keychain'],
    ['win32', 'dpapi']
  ])('on %s names the backend %s and persists when encryption is available', (platform, name) => {
    expect(decideTokenPolicy({ platform, available: true, linuxBackend: null })).toEqual({
      persist: true,
      backend: `electron-safestorage:${name}`,
      notice: null,
      noticeCode: null
    })
    expect(decideTokenPolicy({ platform, available: false, linuxBackend: null })).toMatchObject({
      persist: false,
      notice: NOTICE_ENCRYPTION_UNAVAILABLE,
      noticeCode: 'encryptionUnavailable'
    })
  })

  it('never persists when encryption is unavailable, even with a real keyring named', () => {
    expect(decideTokenPolicy({ platform: 'linux', available: false, linuxBackend: 'gnome_libsecret' }).persist).toBe(false)
  })
})

describe('safeStorage cipher', () => {
  it('with a real keyring, round-trips through safeStorage and reports itself secure', async () => {
    const { storage, calls } = fakeSafeStorage('gnome_libsecret', true)
    const cipher = await createSafeStorageCipher(storage, 'linux')
    expect(cipher.secure).toBe(true)
    expect(cipher.backend).toBe('electron-safestorage:gnome_libsecret')
    const data = await cipher.encrypt('refresh-token-value')
    expect(Buffer.from(data).toString()).not.toContain('refresh-token-value')
    expect(await cipher.decrypt(data)).toBe('refresh-token-value')
    expect(calls).toEqual({ encrypt: 1, decrypt: 1 })
  })

  it('with basic_text, is not secure and refuses to write anything, without touching safeStorage', async () => {
    const { storage, calls } = fakeSafeStorage('basic_text', true)
    const cipher = await createSafeStorageCipher(storage, 'linux')
    expect(cipher.secure).toBe(false)
    expect(cipher.policy.notice).toBe(NOTICE_NO_KEYRING)
    await expect(cipher.encrypt('refresh-token-value')).rejects.toMatchObject({ code: 'Storage' })
    // Ciphertext left by an earlier run under a weak backend is not trusted either.
    await expect(cipher.decrypt(new Uint8Array([1, 2, 3]))).rejects.toBeInstanceOf(CallsightError)
    expect(calls).toEqual({ encrypt: 0, decrypt: 0 })
  })

  it('when the availability check itself fails, treats encryption as unavailable', async () => {
    const { storage } = fakeSafeStorage('gnome_libsecret', true)
    storage.isAsyncEncryptionAvailable = async () => {
      throw new Error('dbus gone')
    }
    const cipher = await createSafeStorageCipher(storage, 'linux')
    expect(cipher.secure).toBe(false)
    expect(cipher.policy.notice).toBe(NOTICE_ENCRYPTION_UNAVAILABLE)
  })

  it('reports undecryptable data as a Storage error, so the vault can drop it', async () => {
    const { storage } = fakeSafeStorage('gnome_libsecret', true)
    const cipher = await createSafeStorageCipher(storage, 'linux')
    const err = await cipher.decrypt(new Uint8Array(Buffer.from('garbage'))).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CallsightError)
    expect((err as CallsightError).code).toBe('Storage')
    expect((err as CallsightError).toInfo().message).not.toContain('safeStorage')
  })

  it('does not ask for the Linux backend on other platforms', async () => {
    const { storage } = fakeSafeStorage('basic_text', true)
    storage.getSelectedStorageBackend = () => {
      throw new Error('linux only')
    }
    const cipher = await createSafeStorageCipher(storage, 'darwin')
    expect(cipher).toMatchObject({ secure: true, backend: 'electron-safestorage:keychain' })
  })
})
