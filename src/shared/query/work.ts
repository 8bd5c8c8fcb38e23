/**
 * The steps the parser, the resolver and core's compilers take on queries: what makes "the
 * work is linear in the query's length" checkable without a clock. A compile that walks a
 * subtree again for each of its parents shows here as a count that doubles per nesting level.
 * `limit` stops a run as soon as it passes it (tests set it, so a blow-up fails fast instead
 * of running for minutes); it is Infinity otherwise.
 */
export const queryWork = { steps: 0, limit: Number.POSITIVE_INFINITY }

export function step(): void {
  if (++queryWork.steps > queryWork.limit) throw new RangeError(`query work passed ${queryWork.limit} steps`)
}
