/**
 * For each array that is a value of the top-level object of a JSON text, the line each of
 * its elements starts on (1-based): so an import can say "line 1042" of an entry it refused,
 * which a reader finds in any editor. The text must be valid JSON (it was parsed before).
 */
export function jsonArrayLines(text: string): Map<string, number[]> {
  const out = new Map<string, number[]>()
  let line = 1
  let depth = 0
  let key: string | null = null
  let lastString = ''
  let current: number[] | null = null
  // In the array of interest (depth 2): whether the next non-space character starts an element.
  let expectElement = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '\n') {
      line++
      continue
    }
    if (c === ' ' || c === '\t' || c === '\r') continue
    if (current !== null && depth === 2 && expectElement && c !== ']') {
      current.push(line)
      expectElement = false
    }
    if (c === '"') {
      const start = i + 1
      for (i = start; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++
      if (depth === 1) lastString = text.slice(start, i)
      continue
    }
    if (c === ':' && depth === 1) key = lastString
    else if (c === ',' && depth === 2 && current !== null) expectElement = true
    else if (c === '{' || c === '[') {
      depth++
      if (c === '[' && depth === 2 && key !== null) {
        current = []
        out.set(key, current)
        expectElement = true
      }
    } else if (c === '}' || c === ']') {
      depth--
      if (depth === 1) current = null
    }
  }
  return out
}
