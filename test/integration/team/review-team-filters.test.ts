import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, pullReview, pushReview } from '../../../src/core/team'
import { createSearch } from '../../../src/core/search'
import { SQL_REVIEWS } from '../../../bench/baselines/search-strategies'
import { SearchQuery, type SearchQueryInput } from '../../../src/shared/domain'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { buildFixture } from '../../unit/core/search/fixture'
import { freshDatabase, tempDir } from './helpers'
import { passwordOf, SCHEMA, setUpTenant, workstation } from './review-support'

/**
 * Search's review filters on an account that shares review work count every pulled
 * evaluation (each with its author), not only this workstation's; without sharing, only this
 * workstation's annotations, as ever.
 */
let cluster: PgCluster
const tmp = tempDir('callsight-review-team-filters-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

const CARD = { name: 'Basics', criteria: [{ id: 'q', name: 'Q', weight: 1, scale: '0_10' as const, critical: false }] }

describe('review filters over the team’s evaluations', () => {
  it('finds on workstation A a call scored only by B once A has pulled, by score range and by reviewer', async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'ayse' }, { name: 'mehmet' }])
    // Ayse's workstation holds calls; Mehmet's scores two of them (his own cache need not hold them).
    const fx = buildFixture(400, 3)
    const aPool = createPool({
      url: cluster.urlFor({ database, user: 'ayse', password: passwordOf('ayse') }),
      schema: SCHEMA,
      maxConnections: 1
    })
    const b = workstation(cluster, database, tmp.dir, 'mehmet')
    try {
      fx.cache.review.share.enable(Date.now())
      const [scored, low, mine] = [fx.records[10]!.callId, fx.records[20]!.callId, fx.records[30]!.callId]
      const card = b.cache.review.scorecards.save(CARD, 'card', 'mehmet', Date.now() - 10_000)
      const score = (q: number) => ({ scorecardId: card.id, version: card.version, answers: { q }, total: q * 10, failed: false })
      b.save(scored, { score: score(9), note: 'iyi' })
      b.save(low, { score: score(2) })
      await pushReview({ pool: b.pool, schema: SCHEMA, cache: b.cache })
      // Ayse scores a call of her own, here.
      fx.cache.review.annotations.write(mine, { score: score(8) }, { author: 'ayse', at: Date.now() - 5_000, history: false })

      const inMemory = createSearch(fx.cache)
      const sqlOnly = createSearch(fx.cache, {}, SQL_REVIEWS)
      const found = (review: SearchQueryInput['review']): string[][] =>
        [inMemory, sqlOnly].map((s) =>
          s
            .page(SearchQuery.parse({ results: 'all', review }), 0, 50)
            .rows.map((r) => r.callId)
            .sort()
        )
      // Before the pull, only Ayse's own evaluation.
      expect(found({ scoreMin: 70 })).toEqual([[mine], [mine]])

      await pullReview({ pool: aPool, schema: SCHEMA, cache: fx.cache })
      expect(found({ scoreMin: 70 })).toEqual([[mine, scored].sort(), [mine, scored].sort()])
      expect(found({ scoreMax: 30 })).toEqual([[low], [low]])
      expect(found({ reviewer: 'mehmet' })).toEqual([[low, scored].sort(), [low, scored].sort()])
      expect(found({ reviewer: 'mehmet', scoreMin: 70 })).toEqual([[scored], [scored]])
      // One evaluation meets all conditions: Ayse's 80 is not Mehmet's.
      expect(found({ reviewer: 'ayse', scoreMin: 70 })).toEqual([[mine], [mine]])
      expect(found({ scorecardId: 'card', scoreMin: 0 }).map((ids) => ids.length)).toEqual([3, 3])
      expect(inMemory.count(SearchQuery.parse({ results: 'all', review: { scoreMin: 0 } }))).toBe(3)

      // Not sharing: this workstation's annotations only, as before.
      fx.cache.review.share.setValue('enabled', '0')
      const local = createSearch(fx.cache)
      expect(local.page(SearchQuery.parse({ results: 'all', review: { scoreMin: 70 } }), 0, 50).rows.map((r) => r.callId)).toEqual([mine])
    } finally {
      fx.close()
      await aPool.end()
      await b.close()
    }
  }, 90_000)
})
