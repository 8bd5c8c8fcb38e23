/**
 * One argument of a command line the CLI prints for the user to copy into a POSIX shell.
 * Values come from the cache and the service (call type names, the cache's path), so a name
 * like `x;curl …|sh;` must reach the command as one argument, never as shell syntax. Plain
 * words (letters of any script, digits and `_ - . , : / +`) stay as they are, for
 * readability; anything else is single-quoted, a `'` in it written as `'\''`.
 */
const PLAIN = /^[\p{L}\p{N}_\-.,:/+]+$/u

export function shellWord(value: string): string {
  if (PLAIN.test(value)) return value
  return `'${value.replace(/'/g, `'\\''`)}'`
}
