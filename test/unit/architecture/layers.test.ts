import { describe, expect, it } from 'vitest'
import { ESLint } from 'eslint'

// The layer directions are a lint rule, not a convention: these imports must fail lint.
const eslint = new ESLint({ cwd: process.cwd() })

async function restrictedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file })
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
}

describe('layer directions', () => {
  it.each([
    ['src/renderer/src/x.ts', "import { app } from 'electron'\nexport const a = app\n"],
    ['src/renderer/src/x.ts', "import * as c from '../../core/cache/db'\nexport const a = c\n"],
    ['src/renderer/src/x.ts', "import { readFileSync } from 'node:fs'\nexport const a = readFileSync\n"],
    ['src/core/cache/x.ts', "import { app } from 'electron'\nexport const a = app\n"],
    ['src/core/cache/x.ts', "import * as m from '../../main/index'\nexport const a = m\n"],
    ['src/shared/x.ts', "import * as c from '../core/errors'\nexport const a = c\n"],
    ['src/reference-service/x.ts', "import * as s from '../shared/domain'\nexport const a = s\n"],
    ['src/reference-service/x.ts', "import * as c from '../core/client/client'\nexport const a = c\n"],
    ['src/preload/x.ts', "import { z } from 'zod'\nexport const a = z\n"],
    ['src/cli/x.ts', "import { app } from 'electron'\nexport const a = app\n"],
    ['src/cli/x.ts', "import * as s from '../reference-service/index'\nexport const a = s\n"],
    ['src/host/x.ts', "import { app } from 'electron'\nexport const a = app\n"],
    ['src/host/x.ts', "import Store from 'electron-store'\nexport const a = Store\n"],
    ['src/web/x.ts', "import * as m from '../main/app-context'\nexport const a = m\n"],
    ['src/host/x.ts', "import * as c from '../cli/index'\nexport const a = c\n"],
    ['src/core/app/x.ts', "import * as h from '../../host/ipc/router'\nexport const a = h\n"],
    ['src/renderer/src/x.ts', "import * as h from '../../host/csp'\nexport const a = h\n"],
    ['src/core/app/x.ts', "import * as w from '../../web/serve'\nexport const a = w\n"],
    ['src/host/ipc/x.ts', "import * as w from '../../web/serve'\nexport const a = w\n"],
    ['src/main/x.ts', "import * as w from '../web/serve'\nexport const a = w\n"]
  ])('%s rejects %j', async (file, code) => {
    expect(await restrictedImports(file, code)).toHaveLength(1)
  })

  it.each([
    ['src/renderer/src/x.ts', "import { foldText } from '../../shared/text/fold'\nexport const a = foldText\n"],
    ['src/core/cache/x.ts', "import { foldText } from '../../shared/text/fold'\nexport const a = foldText\n"],
    ['src/main/x.ts', "import { app } from 'electron'\nimport * as c from '../core/errors'\nexport const a = [app, c]\n"],
    ['src/cli/x.ts', "import * as c from '../core/errors'\nexport const a = c\n"],
    ['src/cli/commands/x.ts', "import * as h from '../../web/serve'\nexport const a = h\n"],
    ['src/main/x.ts', "import * as h from '../host/ipc/router'\nexport const a = h\n"],
    [
      'src/host/x.ts',
      "import * as c from '../core/errors'\nimport * as s from '../reference-service/index'\nimport { createServer } from 'node:http'\nexport const a = [c, s, createServer]\n"
    ]
  ])('%s allows %j', async (file, code) => {
    expect(await restrictedImports(file, code)).toEqual([])
  })
})
