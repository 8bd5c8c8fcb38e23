import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto'
import type { Cipher } from '../platform'

/**
 * AES-256-GCM for tests and the CLI, where no OS keyring is at hand. Layout of a sealed value:
 * version(1) | salt(16, passphrase keys only) | iv(12) | tag(16) | ciphertext.
 * A passphrase is stretched with scrypt under a fresh salt per value, so two values sealed
 * with one passphrase share no key; derived keys are cached per salt.
 */
const RAW = 1
const PASS = 2
const SALT = 16
const IV = 12
const TAG = 16

export function createAesGcmCipher(key: Buffer | string): Cipher {
  if (typeof key !== 'string' && key.length !== 32) throw new RangeError('An AES-256 key is 32 bytes')
  if (typeof key === 'string' && key.length === 0) throw new RangeError('The passphrase is empty')
  const derived = new Map<string, Buffer>()
  const keyFor = (salt: Buffer): Buffer => {
    if (typeof key !== 'string') return key
    const id = salt.toString('hex')
    let k = derived.get(id)
    if (!k) {
      k = scryptSync(key, salt, 32, { N: 1 << 14, r: 8, p: 1 })
      derived.set(id, k)
    }
    return k
  }

  return {
    backend: 'aes-256-gcm',
    secure: true,
    async encrypt(plain: string): Promise<Uint8Array> {
      const salt = typeof key === 'string' ? randomBytes(SALT) : Buffer.alloc(0)
      const iv = randomBytes(IV)
      const c = createCipheriv('aes-256-gcm', keyFor(salt), iv)
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()])
      return Buffer.concat([Buffer.from([typeof key === 'string' ? PASS : RAW]), salt, iv, c.getAuthTag(), body])
    },
    async decrypt(data: Uint8Array): Promise<string> {
      const buf = Buffer.from(data)
      const version = buf[0]
      const expected = typeof key === 'string' ? PASS : RAW
      if (version !== expected) throw new Error('Sealed with another kind of key')
      const saltLen = version === PASS ? SALT : 0
      if (buf.length < 1 + saltLen + IV + TAG) throw new Error('Sealed value too short')
      const salt = buf.subarray(1, 1 + saltLen)
      const iv = buf.subarray(1 + saltLen, 1 + saltLen + IV)
      const tag = buf.subarray(1 + saltLen + IV, 1 + saltLen + IV + TAG)
      const d = createDecipheriv('aes-256-gcm', keyFor(Buffer.from(salt)), iv)
      d.setAuthTag(tag)
      return Buffer.concat([d.update(buf.subarray(1 + saltLen + IV + TAG)), d.final()]).toString('utf8')
    }
  }
}
