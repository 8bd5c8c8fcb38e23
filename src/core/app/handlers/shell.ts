import { CallsightError } from '../../errors'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'

export type ShellHandlers = Pick<Handlers, 'app.info' | 'shell.openExternal'>

/** What the app says about itself, and the one way out to the user's browser. */
export function shellHandlers(state: AppState): ShellHandlers {
  const { platform } = state
  return {
    'app.info': async () => ({
      version: platform.appVersion,
      electron: platform.electronVersion,
      platform: platform.platform,
      locale: platform.locale,
      systemZone: platform.systemZone,
      darkMode: platform.darkMode()
    }),

    'shell.openExternal': async ({ url }) => {
      const protocol = new URL(url).protocol
      if (protocol !== 'https:' && protocol !== 'http:') throw new CallsightError('InvalidInput', 'Only web links can be opened.')
      await platform.openExternal(url)
      return { ok: true as const }
    }
  }
}
