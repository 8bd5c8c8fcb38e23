export { Session, type SessionOptions, type SessionEvents } from './session'
export { TokenVault, type InsecurePolicy } from './token-vault'
