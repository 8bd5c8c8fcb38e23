import { createRouter, createWebHashHistory } from 'vue-router'
import { useAppStore } from './stores/app'

// Hash history: the app is loaded from file://, where path URLs cannot be resolved.
// Every screen is its own chunk, so PrimeVue's heavy parts and the charts stay out of the
// first load.
export const router = createRouter({
  history: createWebHashHistory(),
  routes: [
    { path: '/', redirect: '/search' },
    { path: '/signin', name: 'signin', component: () => import('./views/SignInView.vue'), meta: { bare: true } },
    { path: '/search', name: 'search', component: () => import('./views/SearchView.vue') },
    { path: '/search/call/:offset(\\d+)', name: 'call', component: () => import('./views/SearchView.vue') },
    { path: '/sync', name: 'sync', component: () => import('./views/SyncView.vue') },
    { path: '/review', name: 'review', component: () => import('./views/ReviewView.vue') },
    { path: '/calibration', name: 'calibration', component: () => import('./views/CalibrationView.vue') },
    { path: '/insight', name: 'insight', component: () => import('./views/InsightView.vue') },
    { path: '/settings', name: 'settings', component: () => import('./views/SettingsView.vue') },
    { path: '/:rest(.*)*', redirect: '/search' }
  ]
})

router.beforeEach((to) => {
  const app = useAppStore()
  if (!app.ready) return true
  if (!app.signedIn && to.name !== 'signin') return { name: 'signin' }
  return true
})
