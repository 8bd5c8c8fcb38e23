import { spawn, type ChildProcess } from 'node:child_process'

export interface Ran {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export function spawnCli(cli: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<Ran> } {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, CALLSIGHT_PASSWORD: 'demo', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const done = new Promise<Ran>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, done }
}

export const runCli = (cli: string, args: string[], env?: Record<string, string>): Promise<Ran> => spawnCli(cli, args, env).done
