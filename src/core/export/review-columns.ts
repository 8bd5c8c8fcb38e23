import type { CallRecord } from '../../shared/domain'
import type { Annotation, Scorecard } from '../../shared/review'
import { DateCell, NumberCell, type Cell } from './cells'
import type { TabularColumn } from './tabular'
import type { HeaderLabels } from './header-labels'
import type { TextGuard } from './text-guard'
import { SheetNames } from './sheet-names'

/** The annotations an export reads beside the calls (column `review`). */
export interface ReviewLookup {
  annotation(callId: string): Annotation | null
  /** Every version of every scorecard: each score names the one it answered. */
  scorecards: readonly Scorecard[]
}

const number = (n: number): NumberCell => new NumberCell(String(n), n)

/** CSV/XLSX: status, tags, note, score, scorecard, reviewer, reviewed at. */
export function reviewPart(
  lookup: ReviewLookup,
  text: TextGuard,
  columns: TabularColumn[],
  labels: HeaderLabels
): (row: Cell[], record: CallRecord) => void {
  columns.push(
    { header: labels.reviewStatus, kind: 'text' },
    { header: labels.tags, kind: 'text' },
    { header: labels.note, kind: 'longText' },
    { header: labels.score, kind: 'value' },
    { header: labels.scorecard, kind: 'text' },
    { header: labels.reviewer, kind: 'text' },
    { header: labels.reviewedAt, kind: 'date' }
  )
  const names = new Map(lookup.scorecards.map((s) => [`${s.id}@${s.version}`, `${s.name} v${s.version}`]))
  return (row, record) => {
    const a = lookup.annotation(record.callId)
    if (!a) {
      row.push('', '', '', '', '', '', '')
      return
    }
    const score = a.score
    row.push(
      labels.statuses[a.status],
      text.text(a.tags.join(', ')),
      text.text(a.note),
      score?.total === null || score === null ? '' : number(score.total),
      score ? text.text(names.get(`${score.scorecardId}@${score.version}`) ?? score.scorecardId) : '',
      text.text(a.updatedBy),
      new DateCell(a.updatedAt)
    )
  }
}

/**
 * JSON: the annotation, texts guarded. `status` stays the code (what a program matches on),
 * `statusLabel` is its name in the export's header language, as the CSV/XLSX cell shows it.
 */
export function reviewJson(
  lookup: ReviewLookup,
  text: TextGuard,
  labels: HeaderLabels,
  record: CallRecord
): Record<string, unknown> | null {
  const a = lookup.annotation(record.callId)
  if (!a) return null
  return {
    id: a.id,
    status: a.status,
    statusLabel: labels.statuses[a.status],
    tags: a.tags.map((t) => text.mask(t)),
    note: text.mask(a.note),
    score: a.score,
    author: text.mask(a.author),
    updatedBy: text.mask(a.updatedBy),
    updatedAt: a.updatedAt
  }
}

export interface ScorecardSheet {
  name: string
  header: string[]
  rows: Cell[][]
}

/**
 * XLSX: one sheet per scorecard, a row per scored call with each criterion's answer
 * (criteria of every version, by id, named as in the newest). Rows are collected while the
 * calls stream (scored calls only) and written after the Calls sheet.
 */
export class ScorecardSheets {
  private readonly rows = new Map<string, Cell[][]>()
  private readonly cards = new Map<string, Scorecard[]>()

  constructor(
    private readonly lookup: ReviewLookup,
    private readonly text: TextGuard,
    private readonly labels: HeaderLabels
  ) {
    for (const s of lookup.scorecards) this.cards.set(s.id, [...(this.cards.get(s.id) ?? []), s])
  }

  private criteriaOf(id: string): Array<{ id: string; name: string }> {
    const versions = [...(this.cards.get(id) ?? [])].sort((a, b) => b.version - a.version)
    const seen = new Map<string, string>()
    for (const v of versions) for (const c of v.criteria) if (!seen.has(c.id)) seen.set(c.id, c.name)
    return [...seen].map(([cid, name]) => ({ id: cid, name }))
  }

  add(record: CallRecord): void {
    const score = this.lookup.annotation(record.callId)?.score
    if (!score) return
    const criteria = this.criteriaOf(score.scorecardId)
    const row: Cell[] = [
      this.text.neutralizeOnly(record.callId),
      new DateCell(record.callAt),
      number(score.version),
      score.total === null ? '' : number(score.total),
      score.failed ? this.labels.yes : this.labels.no,
      ...criteria.map((c) => {
        const a = score.answers[c.id]
        return a === undefined || a === null ? '' : number(a)
      })
    ]
    const list = this.rows.get(score.scorecardId)
    if (list) list.push(row)
    else this.rows.set(score.scorecardId, [row])
  }

  sheets(zone: string): ScorecardSheet[] {
    const taken = new SheetNames([this.labels.dataSheet, this.labels.aboutSheet])
    return [...this.rows].map(([id, rows]) => {
      const newest = [...(this.cards.get(id) ?? [])].sort((a, b) => b.version - a.version)[0]
      return {
        name: taken.claim(newest?.name ?? id, 'Scorecard'),
        header: [
          this.labels.callId,
          this.labels.callDate(zone),
          this.labels.version,
          this.labels.total,
          this.labels.criticalFailed,
          ...this.criteriaOf(id).map((c) => this.text.text(c.name))
        ],
        rows
      }
    })
  }
}
