import type { CallsightApi } from '../shared/ipc/contract'

declare global {
  interface Window {
    api: CallsightApi
  }
}
export {}
