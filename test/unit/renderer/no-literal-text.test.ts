import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parse } from '@vue/compiler-sfc'
import { describe, expect, it } from 'vitest'

// Every word the app shows comes from the message files, so the Turkish UI is complete: a
// template may not hold literal prose (a text node, a user-facing attribute, or a string in
// a bound expression), in any language. Symbols and punctuation are fine.

const ROOT = 'src/renderer/src'
/** Attributes a user reads or hears; class, data-testid, icon names… are not prose. */
const USER_FACING = new Set([
  'title',
  'placeholder',
  'aria-label',
  'label',
  'header',
  'alt',
  'summary',
  'detail',
  'empty-message',
  'empty-filter-message'
])
/** Texts that are the same in every language. */
const ALLOW = new Set(['Callsight', 'CSV', 'XLSX', 'JSON', 'NDJSON', 'Esc', 'Ctrl', 'Shift', 'PNG'])

function vueFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? vueFiles(join(dir, e.name)) : e.name.endsWith('.vue') ? [join(dir, e.name)] : []
  )
}

/** Prose: two or more letters in a row (Unicode letters, so Turkish is caught too), not on the allowlist. */
function prose(text: string): string | null {
  // An example address is the same in every language.
  if (/^\s*[a-z][\w+.-]*:\/\/\S+\s*$/i.test(text)) return null
  for (const word of text.match(/\p{L}{2,}/gu) ?? []) if (!ALLOW.has(word)) return word
  return null
}

/** String literals in a template expression that read as prose: a space between words, or a Capitalised word. */
function proseLiterals(expr: string): string[] {
  const out: string[] = []
  for (const m of expr.matchAll(/(['"`])((?:(?!\1)[^\\]|\\.)*)\1/g)) {
    const s = m[2] ?? ''
    // A code compared with === (an error code, a phase) is not shown to anyone.
    const at = m.index ?? 0
    const compared = /[!=]==?\s*$/.test(expr.slice(0, at)) || /^\s*[!=]==?/.test(expr.slice(at + m[0].length))
    if (/\p{L}{2,}\s+\p{L}{2,}/u.test(s) || (/^\p{Lu}\p{Ll}+$/u.test(s) && !ALLOW.has(s) && !compared)) out.push(s)
  }
  return out
}

type Node = {
  type: number
  tag?: string
  content?: unknown
  props?: Array<{ type: number; name: string; value?: { content: string }; exp?: { content: string } }>
  children?: Node[]
}

/** What a single-file component's template shows literally. */
function scan(source: string, filename = 'probe.vue'): string[] {
  const { descriptor } = parse(source, { filename })
  const found: string[] = []
  const walk = (n: Node): void => {
    if (n.type === 2 && typeof n.content === 'string') {
      const w = prose(n.content)
      if (w) found.push(`text "${n.content.trim()}"`)
    }
    if (n.type === 5) {
      const exp = (n.content as { content?: string } | undefined)?.content ?? ''
      for (const s of proseLiterals(exp)) found.push(`{{ '${s}' }}`)
    }
    for (const p of n.props ?? []) {
      if (p.type === 6 && USER_FACING.has(p.name) && p.value && prose(p.value.content))
        found.push(`${n.tag} ${p.name}="${p.value.content}"`)
      if (p.type === 7 && p.exp) for (const s of proseLiterals(p.exp.content)) found.push(`${n.tag} :${p.name}="'${s}'"`)
    }
    for (const c of n.children ?? []) walk(c)
  }
  if (descriptor.template?.ast) walk(descriptor.template.ast as unknown as Node)
  return found
}

const findings = (file: string): string[] => scan(readFileSync(file, 'utf8'), file).map((f) => `${relative(ROOT, file)}: ${f}`)

describe('templates hold no literal prose', () => {
  const files = vueFiles(ROOT)

  it('finds the templates', () => {
    expect(files.length).toBeGreaterThan(15)
  })

  it('every visible word in a template comes from the message files', () => {
    expect(files.flatMap(findings)).toEqual([])
  })

  it('the check itself catches literal text, attributes and bound strings', () => {
    const probe = (template: string): number => scan(`<template>${template}</template>`).length
    expect(probe('<span>Today</span>')).toBe(1)
    expect(probe('<span>Bugün</span>')).toBe(1)
    expect(probe('<input placeholder="Search calls">')).toBe(1)
    expect(probe(`<Button :label="'Clear all'" />`)).toBe(1)
    expect(probe(`<Button :label="t('common.clear')" data-testid="clear-all" class="wide one" />`)).toBe(0)
    expect(probe('<span>“{{ text }}” · CSV</span>')).toBe(0)
    expect(probe(`<Notice :advice="code === 'Network' ? t('x') : null" />`)).toBe(0)
    expect(probe(`<span>{{ 'Today' }}</span>`)).toBe(1)
  })
})
