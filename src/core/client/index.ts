export {
  createServiceClient,
  buildCallsBody,
  PATHS,
  CLIENT_ID,
  DEFAULT_SORT_COLUMN,
  type ServiceClient,
  type ServiceClientOptions,
  type TokenSet,
  type AccessTokenSource,
  type GetCallsParams,
  type CallsPage,
  type WaitInfo
} from './service-client'
export { mapHttpFailure, parseFieldMessages, MESSAGES, type Endpoint } from './error-map'
export { normalizeEnvelope, toCallRecord } from './records'
export { redactingLogger, redact, redactText } from '../logging/redact'
export { DEFAULT_RETRY, backoffMs, type RetryPolicy } from './retry'
export { remoteSearch } from './remote-search'
