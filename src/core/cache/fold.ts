import { foldChar } from '../../shared/text/fold'

const ASCII_UPPER = /[A-Z]+/g
const NON_ASCII = /[^\x00-\x7f]/gu

/**
 * The same folding as shared foldText (a test holds them equal), built for bulk ingest:
 * it touches only the non-ASCII code points one at a time instead of every character.
 */
export function foldForIndex(text: string): string {
  return text.replace(ASCII_UPPER, (s) => s.toLowerCase()).replace(NON_ASCII, foldChar)
}
