import { createApp } from 'vue'
import { createPinia } from 'pinia'
import PrimeVue from 'primevue/config'
import ToastService from 'primevue/toastservice'
import Tooltip from 'primevue/tooltip'
import App from './App.vue'
import { i18n } from './i18n'
import { router } from './router'
import { CallsightPreset, DARK_CLASS } from './theme'
import './styles.css'

const app = createApp(App)
app.use(createPinia())
app.use(i18n)
app.use(router)
app.use(PrimeVue, {
  theme: { preset: CallsightPreset, options: { darkModeSelector: `.${DARK_CLASS}`, cssLayer: false } },
  ripple: false
})
app.use(ToastService)
app.directive('tooltip', Tooltip)
app.mount('#app')
