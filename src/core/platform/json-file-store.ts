import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, copyFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { KeyValueStore } from './index'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tightenFile } from './private-files'

/**
 * A KeyValueStore in one JSON file, for plain-Node hosts (the CLI, the tests).
 * Writes go to a temporary file that is renamed over the old one, so a crash never leaves a
 * half-written file. A file that does not parse is kept aside as `.corrupt` and replaced.
 */
export class JsonFileStore implements KeyValueStore {
  private data: Record<string, unknown>

  constructor(private readonly file: string) {
    this.data = this.load()
  }

  private load(): Record<string, unknown> {
    if (!existsSync(this.file)) return {}
    tightenFile(this.file)
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'))
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>
    } catch {
      // fall through: keep the unreadable file for inspection, start empty
    }
    copyFileSync(this.file, `${this.file}.corrupt`)
    tightenFile(`${this.file}.corrupt`)
    return {}
  }

  get(key: string): unknown {
    return this.data[key]
  }

  set(key: string, value: unknown): void {
    this.data[key] = value
    this.flush()
  }

  delete(key: string): void {
    if (!(key in this.data)) return
    delete this.data[key]
    this.flush()
  }

  private flush(): void {
    // A folder it creates is private; one that exists is the caller's and keeps its mode.
    mkdirSync(dirname(this.file), { recursive: true, mode: PRIVATE_DIR_MODE })
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(this.data, null, 2), { mode: PRIVATE_FILE_MODE })
    // A temporary file left by a crash would be reused with its old mode.
    tightenFile(tmp)
    renameSync(tmp, this.file)
  }
}
