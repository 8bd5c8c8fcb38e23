export { Session, type SessionOptions, type SessionEvents } from './session'
export { TokenVault, type InsecurePolicy, type SaveOutcome } from './token-vault'
