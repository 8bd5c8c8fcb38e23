export type { FieldOp, FieldValue, QueryError, QueryErrorCode, QueryNode, ResolvedNode, Span, TextField } from './ast'
export { numberOf, parseQuery, tokensOf } from './parse'
export { analyzeQuery, fieldName, keyByName, resolveQuery, type KeyRef, type ResolveContext } from './resolve'
export {
  CallText,
  evaluate,
  matchedIn,
  matchedItems,
  positiveTerms,
  reachesAnalysis,
  type EvalCall,
  type NamedItem,
  type NumberReader
} from './evaluate'
export { describeQueryError, underline } from './messages'
export { callIdOf, callIdSpellings } from './call-id'
export { unknownValues, type KnownValues, type ValueWarning } from './values'
export { mayHoldRecordTerms, recordFieldOf, splitRecordTerms, type RecordTerm } from './record-terms'
