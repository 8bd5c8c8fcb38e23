import type { Duplex } from 'node:stream'
import pg from 'pg'
import { CallsightError } from '../errors'

/**
 * node-postgres's Client, holding the password back from any server that does not prove it
 * knows it: libpq's `require_auth=scram-sha-256`. node-postgres answers a server's request
 * for a cleartext password (or an MD5 hash of it, which is as good as the password to anyone
 * who records it) with the password; a stand-in server on the path, or one whose address was
 * mistyped, would collect it. Here only SCRAM-SHA-256 gets it, and SCRAM never sends it.
 *
 * A server that lets us in without asking (trust, peer) is refused when a password was
 * configured (the connection's own, or PGPASSWORD): our server asks for one, so one that does
 * not is not ours, or was set up so that anyone may write. With no password configured at all
 * (a local owner on a trust socket, ~/.pgpass only) nothing secret is at stake and the
 * connection goes on; ~/.pgpass is read only when a server asks by SCRAM.
 *
 * With TLS on, SCRAM binds to the TLS channel (SCRAM-SHA-256-PLUS) when the server offers it,
 * so a man in the middle cannot relay our exchange to the real server; with `verify-full`
 * the binding is required.
 */
export interface GuardedClientConfig extends pg.ClientConfig {
  /** Refuse a server that does not offer SCRAM-SHA-256-PLUS over TLS (sslmode verify-full). */
  requireChannelBinding?: boolean
}

/** The parts of node-postgres's Client this class hooks; they are not in its typings. */
interface ClientInternals {
  connection: pg.Connection & { stream: Duplex & { getPeerCertificate?: unknown }; attachListeners(stream: Duplex): void }
  password: string | null | (() => unknown)
  saslSession: unknown
  _connecting: boolean
  _attachListeners(con: pg.Connection): void
  _handleAuthSASL(msg: { mechanisms: string[] }): void
  _handleAuthSASLFinal(msg: unknown): void
  _handleReadyForQuery(msg: unknown): void
}

const base = pg.Client.prototype as unknown as ClientInternals

/** Authentication requests (the int32 after 'R') that node-postgres's parser does not know. */
const UNKNOWN_AUTH: Record<string, string> = {
  '2': 'Kerberos V5',
  '6': 'SCM credentials',
  '7': 'GSSAPI',
  '8': 'GSSAPI',
  '9': 'SSPI'
}

function refusal(asked: string, why: string): CallsightError {
  return new CallsightError('Network', `The team cache server asked for ${asked}; Callsight refused and sent no password.`, {
    hint: `${why} Callsight authenticates to PostgreSQL only with SCRAM-SHA-256 (password_encryption = scram-sha-256 and "scram-sha-256" in pg_hba.conf). If the server is really yours, change its authentication method; otherwise check the address.`
  })
}

export class GuardedClient extends pg.Client {
  private readonly requireChannelBinding: boolean
  private scramDone = false
  private refused = false

  constructor(config: GuardedClientConfig = {}) {
    // Passed on as it is: pg.Pool keeps the password as a property a copy would not carry.
    super(config)
    this.requireChannelBinding = config.requireChannelBinding === true
    this.guardParser()
  }

  private get internals(): ClientInternals {
    return this as unknown as ClientInternals
  }

  /** Whether a password is at hand before the server asks (its own, or PGPASSWORD). */
  private passwordConfigured(): boolean {
    const pw = this.internals.password
    return typeof pw === 'function' || (typeof pw === 'string' && pw !== '')
  }

  /** Ends the connection attempt with `err`, before anything more is sent. */
  private refuse(err: CallsightError): void {
    if (this.refused) return
    this.refused = true
    const con = this.internals.connection
    con.emit('error', err)
    con.stream.destroy()
  }

  // node-postgres binds these by name when it attaches its listeners, so overriding works.
  _handleAuthCleartextPassword(): void {
    this.refuse(refusal('the password in clear text', 'Anyone on the way, or a server posing as yours, would read it.'))
  }

  _handleAuthMD5Password(): void {
    this.refuse(
      refusal('an MD5 password hash', 'An MD5 hash is as good as the password to whoever records it, and MD5 is deprecated in PostgreSQL.')
    )
  }

  _handleAuthSASL(msg: { mechanisms: string[] }): void {
    if (this.refused) return
    const offered = msg.mechanisms
    if (!offered.includes('SCRAM-SHA-256') && !offered.includes('SCRAM-SHA-256-PLUS')) {
      this.refuse(refusal(`SASL ${offered.join(', ') || '(no mechanism)'}`, 'It is not SCRAM-SHA-256.'))
      return
    }
    const tls = typeof this.internals.connection.stream.getPeerCertificate === 'function'
    if (this.requireChannelBinding && !(tls && offered.includes('SCRAM-SHA-256-PLUS'))) {
      this.refuse(
        refusal(
          'SCRAM without channel binding',
          'With sslmode verify-full Callsight requires SCRAM-SHA-256-PLUS (PostgreSQL 11 or later over TLS), which ties the password check to this TLS connection.'
        )
      )
      return
    }
    base._handleAuthSASL.call(this, msg)
  }

  _handleAuthSASLFinal(msg: unknown): void {
    if (this.refused) return
    base._handleAuthSASLFinal.call(this, msg)
    // node-postgres clears the session once the server's signature checked out.
    if (this.internals.saslSession === null) this.scramDone = true
  }

  _handleAuthenticationOk(): void {
    if (this.refused || this.scramDone || !this.passwordConfigured()) return
    this.refuse(
      refusal(
        'no password at all (or ended SCRAM before proving it knows the password)',
        'A password was configured, so the server should check it; one that lets anyone in is not the one you set up.'
      )
    )
  }

  _handleReadyForQuery(msg: unknown): void {
    // The rest of a refused server's answer may be in the same packet: it must not connect us.
    if (this.refused) return
    base._handleReadyForQuery.call(this, msg)
  }

  _attachListeners(con: pg.Connection): void {
    base._attachListeners.call(this, con)
    con.on('authenticationOk', () => this._handleAuthenticationOk())
  }

  /**
   * node-postgres's parser throws on an authentication request it does not know (GSSAPI,
   * SSPI), from inside the socket's 'data' event, which would end the whole process: the
   * throw becomes a refusal of this connection instead.
   */
  private guardParser(): void {
    const con = this.internals.connection
    const attach = con.attachListeners.bind(con)
    con.attachListeners = (stream: Duplex): void => {
      const before = new Set(stream.listeners('data'))
      attach(stream)
      for (const listener of stream.listeners('data')) {
        if (before.has(listener)) continue
        stream.off('data', listener as (b: Buffer) => void)
        stream.on('data', (chunk: Buffer) => {
          if (this.refused) return
          try {
            ;(listener as (b: Buffer) => void)(chunk)
          } catch (e) {
            const m = /Unknown authenticationOk message type (\d+)/.exec(e instanceof Error ? e.message : '')
            const asked = m
              ? `${UNKNOWN_AUTH[m[1]!] ?? `authentication method ${m[1]}`} authentication`
              : 'something Callsight could not read'
            this.refuse(refusal(asked, 'Callsight does not send a password that way.'))
          }
        })
      }
    }
  }
}
