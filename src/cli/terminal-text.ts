/**
 * Text from the service (titles, summaries, server messages) on its way to a terminal. A
 * title holding ESC or BEL sequences could set the window title, clear the screen, move the
 * cursor or write the clipboard (OSC 52) of whoever runs the CLI; bidi overrides can make a
 * line read differently from what it holds. Every such character is shown, not obeyed.
 */

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g

function visible(c: string): string {
  const code = c.charCodeAt(0)
  // C0 controls as their Control Pictures (ESC shows as ␛), DEL as ␡, the rest as U+FFFD.
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  if (code === 0x7f) return '\u2421'
  return '\uFFFD'
}

/** One line for a terminal: whitespace runs (line breaks, tabs) become one space. */
export function terminalLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(UNSAFE, visible)
}

/**
 * A machine-readable JSON line that is also safe on a terminal. JSON.stringify escapes
 * U+0000–U+001F but writes DEL, the C1 controls (U+009B is a one-character CSI to some
 * terminals), the bidi controls and U+2028/2029 as they are; those become \uXXXX escapes,
 * which every JSON reader turns back into the same string.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
