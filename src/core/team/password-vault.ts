import { z } from 'zod'
import type { Cipher, KeyValueStore } from '../platform'

const Sealed = z.object({ v: z.literal(1), backend: z.string(), data: z.string().min(1) })

/**
 * The team cache's password for one account, kept like the service's tokens (TokenVault):
 * only ciphertext reaches the store, with the cipher backend's name beside it; sealed by
 * another backend or no longer decrypting, it is dropped and asked for again. Without a
 * secure cipher (no OS keyring) it is kept in memory for this run only.
 */
export class TeamPasswordVault {
  private memory: string | null = null

  constructor(
    private readonly store: KeyValueStore,
    private readonly cipher: Cipher,
    private readonly accountId: string
  ) {}

  private get key(): string {
    return `team-password:${this.accountId}`
  }

  get persists(): boolean {
    return this.cipher.secure
  }

  async save(password: string): Promise<void> {
    this.memory = password
    if (!this.cipher.secure) {
      this.store.delete(this.key)
      return
    }
    const sealed = await this.cipher.encrypt(password)
    this.store.set(this.key, { v: 1, backend: this.cipher.backend, data: Buffer.from(sealed).toString('base64') })
  }

  async load(): Promise<string | null> {
    if (this.memory !== null) return this.memory
    const raw = this.store.get(this.key)
    const parsed = Sealed.safeParse(raw)
    if (!parsed.success || parsed.data.backend !== this.cipher.backend) {
      if (raw !== undefined) this.store.delete(this.key)
      return null
    }
    try {
      this.memory = await this.cipher.decrypt(Buffer.from(parsed.data.data, 'base64'))
      return this.memory
    } catch {
      this.store.delete(this.key)
      return null
    }
  }

  clear(): void {
    this.memory = null
    this.store.delete(this.key)
  }
}
