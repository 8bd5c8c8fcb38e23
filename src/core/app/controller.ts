import { toErrorInfo } from '../errors'
import { AppState } from './app-state'
import { accountHandlers } from './handlers/account'
import { exportHandlers } from './handlers/export'
import { membershipHandlers } from './handlers/memberships'
import { reviewHandlers } from './handlers/review'
import { searchHandlers } from './handlers/search'
import { shellHandlers } from './handlers/shell'
import { syncHandlers } from './handlers/sync'
import { teamHandlers } from './handlers/team'
import { teamReviewHandlers } from './handlers/team-review'
import type { AppController, Handlers, PlatformServices } from './host-ports'

/**
 * The application: every channel of the contract, implemented over core by one handler
 * module per concern (src/core/app/handlers/), all sharing one AppState. The Electron shell
 * and the browser mode (serve) bind this same object through the same router, so what the
 * end-to-end tests exercise is what the app runs.
 */
export function createAppController(platform: PlatformServices): AppController {
  const state = new AppState(platform)
  // A new concern adds its module here; the Handlers type makes sure every channel has
  // exactly one handler.
  const handlers: Handlers = {
    ...shellHandlers(state),
    ...accountHandlers(state),
    ...syncHandlers(state),
    ...membershipHandlers(state),
    ...searchHandlers(state),
    ...exportHandlers(state),
    ...teamHandlers(state),
    ...reviewHandlers(state),
    ...teamReviewHandlers(state)
  }
  const startup = start(state)
  return {
    handlers: withStartup(handlers, startup),
    async dispose() {
      await startup.catch(() => undefined)
      // Together: the pull schedule's loop ends once the pull it may be waiting for is cancelled.
      await Promise.all([...state.disposers.map((d) => d()), state.syncs.cancelAll(), state.exports.cancelAll(), state.pulls.cancelAll()])
      state.connectivity.dispose()
      state.closeAll()
      await platform.demo?.stop()
    }
  }
}

/**
 * Start where the user left off: the active account's cache opens for offline work, and
 * saved tokens (when the OS keyring allowed saving them) sign it back in.
 */
async function start(state: AppState): Promise<void> {
  const s = state.settings()
  state.platform.setThemeSource(s.theme)
  const active = s.accounts.find((a) => a.id === s.activeAccountId)
  if (!active || active.demo) return
  const rt = state.activate(active)
  try {
    if (await rt.session.restore()) state.emitSession()
  } catch (e) {
    state.platform.logger.log('warn', 'could not restore the session', { code: toErrorInfo(e).code })
  }
}

/** Every handler waits for start-up (restoring the session) before it answers. */
function withStartup(handlers: Handlers, startup: Promise<void>): Handlers {
  const wrapped = {} as Record<string, unknown>
  for (const [name, fn] of Object.entries(handlers) as Array<[string, (req: unknown, ctx: unknown) => Promise<unknown>]>) {
    wrapped[name] = async (req: unknown, ctx: unknown) => {
      await startup.catch(() => undefined)
      return fn(req, ctx)
    }
  }
  return wrapped as Handlers
}
