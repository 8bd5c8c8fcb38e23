/**
 * A CSV reader that splits rows the way a spreadsheet does, unlike csv-parse, which forgives
 * a bare line break inside an unquoted field. Outside quotes, CRLF, a bare CR and a bare LF
 * each end a row; inside quotes everything is data and `""` is one quote. A quote in the
 * middle of an unquoted field is kept as a character (what Excel and LibreOffice do).
 */
export interface StrictField {
  value: string
  quoted: boolean
}

export function readStrictCsv(text: string): StrictField[][] {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text
  const rows: StrictField[][] = []
  let row: StrictField[] = []
  let value = ''
  let quoted = false
  let inQuotes = false
  let fieldStarted = false
  const endField = (): void => {
    row.push({ value, quoted })
    value = ''
    quoted = false
    fieldStarted = false
  }
  const endRow = (): void => {
    endField()
    rows.push(row)
    row = []
  }
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!
    if (inQuotes) {
      if (c === '"') {
        if (src[i + 1] === '"') {
          value += '"'
          i++
        } else inQuotes = false
      } else value += c
      continue
    }
    if (c === '"' && !fieldStarted) {
      inQuotes = true
      quoted = true
      fieldStarted = true
    } else if (c === ',') endField()
    else if (c === '\r') {
      if (src[i + 1] === '\n') i++
      endRow()
    } else if (c === '\n') endRow()
    else {
      value += c
      fieldStarted = true
    }
  }
  if (inQuotes) throw new Error('unterminated quoted field')
  // A file ends with a record delimiter; anything after the last one is a last, short row.
  if (value !== '' || row.length > 0) endRow()
  return rows
}

/** The lines of a cell as a reader that splits on every break would see them. */
export const linesOf = (cell: string): string[] => cell.split(/\r\n|\r|\n/)
