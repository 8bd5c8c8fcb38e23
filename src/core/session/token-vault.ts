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
 * Where a saved pair lives: on disk, or in memory for this run only — because the cipher is
 * not secure (policy 'memoryOnly'), or because writing it failed (`failed`).
 */
export type SaveOutcome = { persisted: true } | { persisted: false; failed: boolean }

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
   * Keeps the set in memory, then saves the whole set in one store write, so a rotated
   * refresh token is never on disk apart from its access token.
   *
   * Memory comes first: after a refresh the service has already spent the old refresh token,
   * so the new pair is the only one that works whatever happens to the write. A failed write
   * leaves the pair in memory for this run (`{persisted: false, failed: true}`) and removes
   * the copy on disk, whose refresh token is spent: sending it on a later start would make a
   * rotating service revoke the whole token family. Throws only when the policy refuses an
   * insecure cipher.
   */
  async save(tokens: TokenSet): Promise<SaveOutcome> {
    TokenSetSchema.parse(tokens)
    if (!this.cipher.secure) {
      if (this.insecure === 'refuse') {
        throw new CallsightError('Storage', 'Sign-in tokens were not saved, because this computer offers no secure place to keep them.', {
          hint: 'Set up the operating system keyring, or choose to stay signed in for this session only.'
        })
      }
      this.memory = { ...tokens }
      this.store.delete(this.storeKey)
      return { persisted: false, failed: false }
    }
    this.memory = { ...tokens }
    try {
      const sealed = await this.cipher.encrypt(JSON.stringify(tokens))
      this.store.set(this.storeKey, { v: 1, backend: this.cipher.backend, data: Buffer.from(sealed).toString('base64') })
      return { persisted: true }
    } catch {
      try {
        this.store.delete(this.storeKey)
      } catch {
        // The store is failing altogether; the stale copy fails to decrypt or is refused later.
      }
      return { persisted: false, failed: true }
    }
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
