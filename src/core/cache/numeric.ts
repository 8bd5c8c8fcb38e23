// The numeric reading of a value lives in shared: the renderer reads values the same way.
export { parseNumeric } from '../../shared/text/numeric'
