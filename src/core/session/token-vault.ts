import { z } from 'zod'
import { CallsightError } from '../errors'
import type { Cipher, KeyValueStore } from '../platform'
import type { TokenSet } from '../client/service-client'

const StoredTokens = z.object({
  v: z.literal(1),
  backend: z.string(),
  data: z.string().min(1)
})

const TokenSetSchema = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1),
  expiresAt: z.number().int(),
  scope: z.string()
})

export type InsecurePolicy = 'refuse' | 'memoryOnly'

/**
 * The account's tokens at rest: only ciphertext reaches the store, with the cipher backend's
 * name beside it. A value sealed by another backend (the OS keyring changed, or the app moved
 * machines) or one that no longer decrypts is dropped, and the user signs in again.
 *
 * With a cipher that is not truly secure, persisting is refused (the shell decides what to
 * tell the user) unless the caller chose 'memoryOnly': then tokens live for this run only.
 */
export class TokenVault {
  private memory: TokenSet | null = null
  private readonly insecure: InsecurePolicy

  constructor(
    private readonly store: KeyValueStore,
    private readonly cipher: Cipher,
    private readonly key: string,
    opts: { insecure?: InsecurePolicy } = {}
  ) {
    this.insecure = opts.insecure ?? 'refuse'
  }

  /** Whether saved tokens survive a restart. */
  get persists(): boolean {
    return this.cipher.secure
  }

  private get storeKey(): string {
    return `tokens:${this.key}`
  }

  /**
   * Saves the whole set in one store write, so a rotated refresh token is never on disk apart
   * from its access token. Resolves only when the write is done: callers use the new refresh
   * token after this, never before.
   */
  async save(tokens: TokenSet): Promise<void> {
    TokenSetSchema.parse(tokens)
    if (!this.cipher.secure) {
      if (this.insecure === 'refuse') {
        throw new CallsightError('Storage', 'Sign-in tokens were not saved, because this computer offers no secure place to keep them.', {
          hint: 'Set up the operating system keyring, or choose to stay signed in for this session only.'
        })
      }
      this.memory = { ...tokens }
      this.store.delete(this.storeKey)
      return
    }
    const sealed = await this.cipher.encrypt(JSON.stringify(tokens))
    this.store.set(this.storeKey, { v: 1, backend: this.cipher.backend, data: Buffer.from(sealed).toString('base64') })
    this.memory = { ...tokens }
  }

  async load(): Promise<TokenSet | null> {
    if (this.memory) return { ...this.memory }
    const raw = StoredTokens.safeParse(this.store.get(this.storeKey))
    if (!raw.success) {
      if (this.store.get(this.storeKey) !== undefined) this.store.delete(this.storeKey)
      return null
    }
    if (raw.data.backend !== this.cipher.backend) {
      this.store.delete(this.storeKey)
      return null
    }
    try {
      const plain = await this.cipher.decrypt(Buffer.from(raw.data.data, 'base64'))
      const tokens = TokenSetSchema.parse(JSON.parse(plain))
      this.memory = tokens
      return { ...tokens }
    } catch {
      this.store.delete(this.storeKey)
      return null
    }
  }

  clear(): void {
    this.memory = null
    this.store.delete(this.storeKey)
  }
}
