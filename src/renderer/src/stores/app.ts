import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { AccountEntry, AppInfo, CacheInfo, SessionState, Settings, SettingsPatch } from '../../../shared/domain'
import { call, listen } from '../api'
import { intlLocale, resolveZone } from '../lib/format'
import { resolveDark, resolveLanguage, systemLocale } from '../lib/language'

/** What the whole workspace shares: app facts, settings, the session, connectivity, the cache. */
export const useAppStore = defineStore('app', () => {
  const info = ref<AppInfo | null>(null)
  const settings = ref<Settings | null>(null)
  const session = ref<SessionState | null>(null)
  const cache = ref<CacheInfo | null>(null)
  const online = ref(true)
  const osDark = ref(false)
  const ready = ref(false)
  /**
   * Ticks every 15 s so ages ("synced 5 minutes ago") stay true, and at once whenever the
   * cache facts are read again, so an age never starts from a stale clock.
   */
  const now = ref(Date.now())

  const zone = computed(() => resolveZone(settings.value?.displayZone ?? 'system', info.value?.systemZone ?? 'UTC'))
  const language = computed(() =>
    resolveLanguage(settings.value?.language ?? 'system', systemLocale(info.value, globalThis.navigator?.languages ?? []))
  )
  const locale = computed(() => intlLocale(language.value))
  const dark = computed(() => resolveDark(settings.value?.theme ?? 'system', osDark.value))
  // In the workspace: signed in to the service, or an account fed from a team cache (which
  // needs no service session; signing in is only for remote search).
  const signedIn = computed(
    () => session.value !== null && (session.value.status !== 'signedOut' || session.value.account?.teamCache !== undefined)
  )
  const account = computed(() => session.value?.account ?? null)

  let unsubscribe: Array<() => void> = []

  async function init(): Promise<void> {
    const [appInfo, s, sess] = await Promise.all([call('app.info', {}), call('settings.get', {}), call('session.get', {})])
    info.value = appInfo
    osDark.value = appInfo.darkMode
    settings.value = s
    session.value = sess
    unsubscribe.forEach((u) => u())
    unsubscribe = [
      listen('session.changed', (state) => {
        session.value = state
        void refreshSettings()
      }),
      listen('connectivity.changed', (c) => {
        online.value = c.online
      }),
      listen('theme.changed', (t) => {
        osDark.value = t.dark
      })
    ]
    setInterval(() => (now.value = Date.now()), 15_000)
    await refreshCache()
    ready.value = true
  }

  async function refreshSettings(): Promise<void> {
    settings.value = await call('settings.get', {})
  }

  async function refreshCache(): Promise<void> {
    try {
      cache.value = signedIn.value ? await call('cache.info', {}) : null
    } catch {
      cache.value = null
    }
    now.value = Date.now()
  }

  async function updateSettings(patch: SettingsPatch): Promise<void> {
    settings.value = await call('settings.update', patch)
  }

  function setSession(state: SessionState): void {
    session.value = state
  }

  /** The accounts set up on this computer, for the switcher (tokens never leave main). */
  const accounts = ref<AccountEntry[]>([])

  async function loadAccounts(): Promise<void> {
    accounts.value = (await call('accounts.list', {})).accounts
  }

  /**
   * Makes another account active; nobody is signed out. App.vue starts the new account's
   * search afresh when the session's account changes; an account that needs its password
   * again lands on the sign-in screen with its address filled in.
   */
  async function switchAccount(id: string): Promise<void> {
    session.value = await call('accounts.switch', { id })
    await Promise.all([refreshSettings(), refreshCache(), loadAccounts()])
  }

  return {
    info,
    settings,
    session,
    cache,
    online,
    osDark,
    ready,
    now,
    zone,
    language,
    locale,
    dark,
    signedIn,
    account,
    init,
    refreshSettings,
    refreshCache,
    updateSettings,
    setSession,
    accounts,
    loadAccounts,
    switchAccount
  }
})
