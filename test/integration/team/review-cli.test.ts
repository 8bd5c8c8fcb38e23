import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli } from '../cli/helpers'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'

let cli = ''
let cluster: PgCluster
const tmp = tempDir('callsight-review-cli-')

beforeAll(async () => {
  ;[cli, cluster] = await Promise.all([buildCli(), startPgCluster({ settings: FAST_TEST_SETTINGS })])
}, 120_000)
afterAll(async () => {
  await cluster?.stop()
  removeBuild(cli)
  tmp.remove()
})

describe('callsight team add-analyst|list-analysts|remove-analyst, annotations push|pull', () => {
  it('sets up analysts by name, shares an annotation between two of them, and revokes one', async () => {
    const database = await freshDatabase(cluster)
    const owner = cluster.credentialsFor({ database })
    const ownerEnv = { PGPASSWORD: owner.password! }
    const db = ['--db', owner.url, '--schema', 'acme']
    const init = await runCli(cli, ['team', 'init', ...db], {
      CALLSIGHT_WRITER_PASSWORD: 'w-secret-1',
      CALLSIGHT_READER_PASSWORD: 'r-secret-1',
      ...ownerEnv
    })
    expect(init.code).toBe(0)
    // No password given and no terminal: refused (never a flag).
    expect((await runCli(cli, ['team', 'add-analyst', 'ayse', ...db], ownerEnv)).code).toBe(2)
    expect(
      (await runCli(cli, ['team', 'add-analyst', 'Ayse; DROP ROLE x', ...db], { ...ownerEnv, CALLSIGHT_ANALYST_PASSWORD: 'ayse-pw-123' }))
        .code
    ).toBe(2)
    expect(
      (await runCli(cli, ['team', 'add-analyst', 'ayse', ...db], { ...ownerEnv, CALLSIGHT_ANALYST_PASSWORD: 'ayse-pw-123' })).code
    ).toBe(0)
    expect(
      (await runCli(cli, ['team', 'add-analyst', 'leyla', '--lead', ...db], { ...ownerEnv, CALLSIGHT_ANALYST_PASSWORD: 'leyla-pw-123' }))
        .code
    ).toBe(0)
    const list = await runCli(cli, ['team', 'list-analysts', ...db, '--json'], ownerEnv)
    expect(JSON.parse(list.stdout)).toEqual([
      { name: 'ayse', lead: false, canLogin: true },
      { name: 'leyla', lead: true, canLogin: true }
    ])

    const fileA = join(tmp.dir, 'ayse.sqlite')
    const fileL = join(tmp.dir, 'leyla.sqlite')
    const a = openCache(fileA, { checkpointer: false })
    a.review.share.enable(Date.now())
    a.review.annotations.write(
      'c1',
      { status: 'reviewed', tags: ['billing'], note: 'ok' },
      { author: 'ayse', at: Date.now() - 1000, history: true }
    )
    a.close()
    const teamAs = (user: string): string => cluster.credentialsFor({ database, user }).url
    const push = await runCli(cli, ['annotations', 'push', '--db', fileA, '--team', teamAs('ayse'), '--schema', 'acme', '--json'], {
      PGPASSWORD: 'ayse-pw-123'
    })
    expect(push.code).toBe(0)
    expect(JSON.parse(push.stdout).pushed).toMatchObject({ role: 'ayse', pushed: 3, waiting: 0 })
    const pull = await runCli(cli, ['annotations', 'pull', '--db', fileL, '--team', teamAs('leyla'), '--schema', 'acme'], {
      PGPASSWORD: 'leyla-pw-123'
    })
    expect(pull.code).toBe(0)
    expect(pull.stdout).toMatch(/Pulled 3 review change/)
    const l = openCache(fileL, { checkpointer: false })
    try {
      expect(l.review.annotations.get('c1')).toMatchObject({ status: 'reviewed', tags: ['billing'], updatedBy: 'ayse' })
      expect(l.review.share.teamEvaluations('c1')).toMatchObject([{ author: 'ayse', note: 'ok' }])
    } finally {
      l.close()
    }

    expect((await runCli(cli, ['team', 'remove-analyst', 'acme_writer', ...db], ownerEnv)).code).toBe(2)
    const removed = await runCli(cli, ['team', 'remove-analyst', 'ayse', ...db], ownerEnv)
    expect(removed.code).toBe(0)
    const refused = await runCli(cli, ['annotations', 'pull', '--db', fileA, '--team', teamAs('ayse'), '--schema', 'acme'], {
      PGPASSWORD: 'ayse-pw-123'
    })
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/password/)
  }, 120_000)
})
