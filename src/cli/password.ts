import { CallsightError } from '../core/errors'

/**
 * The password comes from CALLSIGHT_PASSWORD or, on a terminal, a prompt that does not
 * echo. It is never a flag: flags end up in shell history and in `ps`.
 */
export async function readPassword(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env.CALLSIGHT_PASSWORD
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new CallsightError('InvalidInput', 'No password: set CALLSIGHT_PASSWORD or run on a terminal to be asked.')
  }
  return promptHidden('Password: ')
}

/** Another secret the same way: from `envName`, or a hidden prompt on a terminal. */
export async function readSecret(envName: string, prompt: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env[envName]
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new CallsightError('InvalidInput', `No password: set ${envName} or run on a terminal to be asked.`)
  }
  return promptHidden(prompt)
}

function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin
    let value = ''
    process.stderr.write(question)
    stdin.setRawMode(true)
    stdin.resume()
    stdin.setEncoding('utf8')
    const done = (err: CallsightError | null): void => {
      stdin.setRawMode(false)
      stdin.pause()
      stdin.off('data', onData)
      process.stderr.write('\n')
      if (err) reject(err)
      else resolve(value)
    }
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(null)
        if (ch === '\u0003') return done(new CallsightError('Cancelled', 'Cancelled.'))
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1)
        else value += ch
      }
    }
    stdin.on('data', onData)
  })
}
