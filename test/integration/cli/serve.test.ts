import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, removeBuild } from './build-cli'
import { runCli, spawnCli } from './helpers'

// `callsight serve` as a command: its flags, its one-line errors and exit codes, one serve
// per data folder, and a clean stop on SIGTERM. The pages it serves are the e2e suites' part;
// here a one-line index.html stands in for the built renderer.

let cli = ''
let dir = ''
let renderer = ''

beforeAll(async () => {
  cli = await buildCli()
  dir = mkdtempSync(join(tmpdir(), 'callsight-serve-cli-'))
  renderer = join(dir, 'renderer')
  mkdirSync(renderer)
  writeFileSync(
    join(renderer, 'index.html'),
    '<!doctype html><html><head><script type="module" src="./app.js"></script></head><body></body></html>'
  )
}, 120_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  removeBuild(cli)
})

const env = (): Record<string, string> => ({ CALLSIGHT_RENDERER_DIR: renderer, DISPLAY: '', WAYLAND_DISPLAY: '' })

describe('callsight serve', () => {
  it('documents its flags', async () => {
    const r = await runCli(cli, ['serve', '--help'])
    expect(r.code).toBe(0)
    for (const flag of ['--port', '--data-dir', '--demo', '--no-open']) expect(r.stdout).toContain(flag)
    expect(r.stdout).toContain('Press Enter for a new address')
    expect((await runCli(cli, ['--help'])).stdout).toMatch(/serve +the app in a browser tab/)
  })

  it('answers a bad flag with one line and exit code 2', async () => {
    const r = await runCli(cli, ['serve', '--port', '70000', '--data-dir', join(dir, 'bad')], env())
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain('--port')
    expect(r.stdout).toBe('')
  })

  it('says how to build the screens when they are missing', async () => {
    const r = await runCli(cli, ['serve', '--no-open', '--data-dir', join(dir, 'unbuilt')], {
      CALLSIGHT_RENDERER_DIR: join(dir, 'nowhere')
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('npm run build')
    expect(r.stderr).not.toMatch(/\bat .*\(.*:\d+:\d+\)/)
  })

  it('prints the address first, keeps the data folder to itself, and stops cleanly on SIGTERM', async () => {
    const data = join(dir, 'data')
    const first = spawnCli(cli, ['serve', '--data-dir', data], env())
    const url = await new Promise<string>((resolve) => createInterface({ input: first.child.stdout! }).once('line', resolve))
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:(\d+)\/\?key=[\w-]{43}$/)
    const port = new URL(url).port
    expect(existsSync(join(data, 'serve.lock'))).toBe(true)

    const second = await runCli(cli, ['serve', '--data-dir', data], env())
    expect(second.code).toBe(10)
    expect(second.stderr).toContain('Another `callsight serve`')
    expect(second.stdout).toBe('')
    const samePort = await runCli(cli, ['serve', '--port', port, '--data-dir', join(dir, 'other')], env())
    expect(samePort.code).toBe(2)
    expect(samePort.stderr).toContain(`Port ${port} on 127.0.0.1 is in use`)

    first.child.kill('SIGTERM')
    const ran = await first.done
    expect(ran.code).toBe(0)
    // No display here: nothing opened, the address is the way in.
    expect(ran.stderr).toContain('open the address above in a browser')
    expect(ran.stderr).toContain('Callsight stopped.')
    expect(ran.stdout.trim()).toBe(url)
    expect(existsSync(join(data, 'serve.lock'))).toBe(false)
  })
})
