import { CallsightError } from '../../core/errors'
import type { Cipher } from '../../core/platform'
import { decideTokenPolicy, type TokenPolicy } from './token-policy'

/** The async half of Electron's safeStorage (Electron ≥ 38), as the cipher uses it. */
export interface SafeStorageLike {
  isAsyncEncryptionAvailable(): Promise<boolean>
  encryptStringAsync(plainText: string): Promise<Buffer>
  decryptStringAsync(encrypted: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }>
  getSelectedStorageBackend(): string
}

export interface SafeStorageCipher extends Cipher {
  readonly policy: TokenPolicy
}

/**
 * A Cipher over safeStorage's async API. Create it only after app 'ready': before that,
 * safeStorage reports the backend as 'unknown'. When the policy says tokens must not be
 * persisted, the cipher refuses both directions, so that even a caller that ignores
 * `secure` can never write weak ciphertext, or trust some left from an earlier run.
 */
export async function createSafeStorageCipher(
  safeStorage: SafeStorageLike,
  platform: NodeJS.Platform | string
): Promise<SafeStorageCipher> {
  let available = false
  try {
    available = await safeStorage.isAsyncEncryptionAvailable()
  } catch {
    available = false
  }
  const linuxBackend = platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null
  const policy = decideTokenPolicy({ platform, available, linuxBackend })

  const refuse = (): never => {
    throw new CallsightError('Storage', 'Sign-in tokens are not stored on this computer because it has no secure keyring.', {
      hint: policy.notice ?? undefined
    })
  }

  return {
    backend: policy.backend,
    secure: policy.persist,
    policy,
    async encrypt(plain: string): Promise<Uint8Array> {
      if (!policy.persist) refuse()
      try {
        return new Uint8Array(await safeStorage.encryptStringAsync(plain))
      } catch (cause) {
        throw new CallsightError('Storage', 'The system keyring could not encrypt the sign-in tokens.', { cause })
      }
    },
    async decrypt(data: Uint8Array): Promise<string> {
      if (!policy.persist) refuse()
      try {
        const { result } = await safeStorage.decryptStringAsync(Buffer.from(data))
        return result
      } catch (cause) {
        throw new CallsightError('Storage', 'The stored sign-in could not be decrypted.', { cause })
      }
    }
  }
}
