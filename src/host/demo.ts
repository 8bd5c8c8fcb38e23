import type { DemoProvider, DemoTenant } from '../core/app/host-ports'
import type { Logger } from '../core/platform'
import { startService, type RunningService, type ServiceOptions } from '../reference-service'
import { DEFAULT_CATALOG } from '../reference-service/config'

/** The demo tenant: the reference service's built-in one, about 50,000 calls over 90 days. */
export const DEMO_OPTIONS: ServiceOptions = {
  host: '127.0.0.1',
  port: 0,
  calls: 50_000,
  seed: 1,
  tz: 'Europe/Istanbul',
  rateLimit: { requests: 600, perSeconds: 60 },
  quiet: true
}

// The reference service's built-in demo tenant (src/reference-service/config.ts).
const DEMO_USER = { username: 'demo', password: 'demo' }

/**
 * Starts the reference service in-process on 127.0.0.1 the first time the user asks for
 * the demo, so a fresh install shows a working app without credentials. Concurrent
 * starts share one service; stop() closes it (on quit, or when the demo is left).
 */
export interface DemoOptions {
  logger?: Logger
  /** Over DEMO_OPTIONS (tests use fewer calls). */
  options?: ServiceOptions
  /** The service's start function; injectable for tests. */
  start?: typeof startService
}

export function createDemoProvider(opts: DemoOptions = {}): DemoProvider {
  const start = opts.start ?? startService
  const options = { ...DEMO_OPTIONS, ...opts.options }
  let running: Promise<{ service: RunningService; tenant: DemoTenant }> | null = null

  return {
    async start() {
      running ??= (async () => {
        const began = Date.now()
        const service = await start(options)
        opts.logger?.log('info', 'Demo service started', { calls: options.calls, ms: Date.now() - began })
        const tenant: DemoTenant = {
          baseUrl: service.url,
          ...DEMO_USER,
          zone: options.tz ?? 'Europe/Istanbul',
          rateLimit: options.rateLimit ?? { requests: 60, perSeconds: 60 },
          callTypes: DEFAULT_CATALOG.map((t) => ({ value: t.Value, description: t.Description }))
        }
        return { service, tenant }
      })().catch((e: unknown) => {
        running = null
        throw e
      })
      return (await running).tenant
    },
    async stop() {
      const current = running
      running = null
      if (current) await (await current).service.stop()
    }
  }
}
