import { randomUUID } from 'node:crypto'

/**
 * Long-running work (syncs, exports) keyed by id, each with its own AbortController, so a
 * cancel reaches exactly the task it names and disposing the app cancels everything.
 */
export class TaskRegistry<Info> {
  private readonly tasks = new Map<string, { controller: AbortController; info: Info; done: Promise<unknown> }>()

  start(info: Info, work: (signal: AbortSignal, id: string) => Promise<unknown>): string {
    const id = randomUUID()
    const controller = new AbortController()
    const done = work(controller.signal, id)
      .catch(() => undefined)
      .finally(() => this.tasks.delete(id))
    this.tasks.set(id, { controller, info, done })
    return id
  }

  cancel(id: string): boolean {
    const t = this.tasks.get(id)
    if (!t) return false
    t.controller.abort()
    return true
  }

  get(id: string): Info | undefined {
    return this.tasks.get(id)?.info
  }

  entries(): Array<[string, Info]> {
    return [...this.tasks.entries()].map(([id, t]) => [id, t.info])
  }

  get size(): number {
    return this.tasks.size
  }

  async cancelAll(): Promise<void> {
    const all = [...this.tasks.values()]
    for (const t of all) t.controller.abort()
    await Promise.all(all.map((t) => t.done))
  }
}
