import { isCallsightError } from '../errors'

/**
 * Whether the service can be reached, learned from the service calls the app makes anyway:
 * a Network or Timeout failure means offline, any answer from the service (even an error
 * status) means online. No polling while things work; the renderer shows the state.
 */
export class Connectivity {
  private online = true

  constructor(private readonly onChange: (online: boolean) => void) {}

  get isOnline(): boolean {
    return this.online
  }

  private set(online: boolean): void {
    if (online === this.online) return
    this.online = online
    this.onChange(online)
  }

  /** Passes the promise through, noting what its outcome says about reachability. */
  async track<T>(work: Promise<T>): Promise<T> {
    try {
      const value = await work
      this.set(true)
      return value
    } catch (e) {
      if (isCallsightError(e)) {
        if (e.code === 'Network' || e.code === 'Timeout') this.set(false)
        else if (e.code !== 'Cancelled' && e.code !== 'NotSignedIn') this.set(true)
      }
      throw e
    }
  }

  dispose(): void {
    // Nothing scheduled: reachability is learned from real calls only.
  }
}
