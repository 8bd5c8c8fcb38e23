/** Shared helpers for the reference service's HTTP tests (real HTTP on 127.0.0.1). */
import { startService, type RunningService, type ServiceOptions } from '../../../src/reference-service'

export const RANGE = { from: '2025-01-01T00:00:00Z', to: '2025-03-01T00:00:00Z' }

export function start(opts: ServiceOptions = {}): Promise<RunningService> {
  return startService({ port: 0, calls: 2000, seed: 7, ...RANGE, rateLimit: { requests: 100_000, perSeconds: 60 }, quiet: true, ...opts })
}

export interface TokenBody {
  token_type: string
  access_token: string
  expires_in: number
  refresh_token: string
  scope: string
}

export async function login(url: string, username = 'demo', password = 'demo'): Promise<TokenBody> {
  const res = await fetch(`${url}/api/public/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password })
  })
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`)
  return (await res.json()) as TokenBody
}

export function refresh(url: string, token: string, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'ServicePublic_App', refresh_token: token, ...extra })
  })
}

export interface Item {
  callId: string
  callDate: string
  title: string
  summary: string
  analysis: Array<{ key: string; friendlyName: string; value: string }>
  durationSeconds: number
  agentName: string
}

export interface Page {
  totalCount: number
  items: Item[]
}

export function getCalls(url: string, token: string, body: unknown, raw = false): Promise<Response> {
  return fetch(`${url}/api/app/public-calls/get-calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: raw ? (body as string) : JSON.stringify(body)
  })
}

export async function page(url: string, token: string, body: Record<string, unknown>): Promise<Page> {
  const res = await getCalls(url, token, body)
  if (res.status !== 200) throw new Error(`get-calls ${res.status}: ${await res.text()}`)
  return (await res.json()) as Page
}

/** Every page of a query, by skip (stays under the 10,000 window). */
export async function all(url: string, token: string, body: Record<string, unknown>): Promise<Page> {
  const first = await page(url, token, { ...body, skip: 0, take: 500 })
  const items = [...first.items]
  while (items.length < first.totalCount && items.length < 10_000) {
    const next = await page(url, token, { ...body, skip: items.length, take: 500 })
    if (next.items.length === 0) break
    items.push(...next.items)
  }
  return { totalCount: first.totalCount, items }
}
