/** mulberry32: a small seeded PRNG, so generated test and benchmark data are repeatable (the one review sampling uses). */
export { seeded as prng } from '../../src/core/review/sampling'
