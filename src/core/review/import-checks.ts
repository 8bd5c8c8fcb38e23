import { z } from 'zod'
import { Answers, NOTE_MAX, ReviewStatus, Scorecard, Tag, type Annotation, type Score } from '../../shared/review'
import type { CallCache } from '../cache'
import { CallsightError, isCallsightError } from '../errors'
import { scoreOf } from './scoring'

/**
 * What an imported annotation may hold: no more than the app lets a user save (the same tag,
 * note and callId limits as AnnotationPatch), because an import writes straight into the
 * cache the app then searches, exports and shows. Its score's total is never taken from the
 * file: it is computed again from the scorecard, as a save does.
 */

/** How far ahead of this computer's clock an imported time may be (clocks drift). */
export const IMPORT_CLOCK_SKEW_MS = 5 * 60_000

const NO_CONTROLS = /^[^\u0000-\u001f\u007f-\u009f]*$/
/** A service callId, as an in-app save takes it: 1–200 characters, none of them control characters. */
export const CallId = z.string().min(1).max(200).regex(NO_CONTROLS, 'holds control characters')
export const Name = z.string().max(200).regex(NO_CONTROLS, 'holds control characters')

/**
 * A time of the merge: last writer wins, so a time in the future would win every later
 * change, on this machine and every one this cache's annotations go to. 0 is the format's
 * "never set"; a time before that cannot be real. No lower bound above 0: an old time can
 * only lose a merge.
 */
export const timeUpTo = (now: number) =>
  z
    .number()
    .int()
    .min(0)
    .refine((t) => t <= now + IMPORT_CLOCK_SKEW_MS, { message: `is later than this computer's clock allows (now + 5 minutes)` })

// total and failed are left out (the file's say): they are computed again from the scorecard.
export const incomingScore = z.object({
  scorecardId: z.string().min(1).max(64),
  version: z.number().int().min(1),
  answers: Answers
})

function incomingAnnotation(now: number) {
  const time = timeUpTo(now)
  return z.object({
    id: z.string().min(1).max(100).regex(NO_CONTROLS, 'holds control characters'),
    callId: CallId,
    author: Name,
    status: ReviewStatus,
    tags: z.array(Tag).max(50),
    note: z.string().max(NOTE_MAX),
    score: incomingScore.nullable(),
    createdAt: time,
    statusAt: time,
    tagsAt: time,
    noteAt: time,
    scoreAt: time,
    updatedAt: time,
    updatedBy: Name,
    serviceDroppedAt: time.nullable().default(null)
  })
}

export type Stored = Omit<Annotation, 'callMissing'>

/** One entry of an import file, with the line of the file it starts on. */
export interface Entry {
  line: number
  value: unknown
}

export interface Refusal {
  line: number
  /** The entry's callId when it had a readable one. */
  callId: string | null
  /** The whole entry, or only its score. */
  part: 'entry' | 'score'
  reason: string
}

export const reasonOf = (e: z.ZodError): string => {
  const issue = e.issues[0]
  if (!issue) return 'not valid'
  const path = issue.path.join('.')
  return path === '' ? issue.message : `${path}: ${issue.message}`
}

const callIdOf = (v: unknown): string | null => {
  const id = (v as { callId?: unknown } | null)?.callId
  return typeof id === 'string' ? id.slice(0, 200) : null
}

/** Scorecard versions of the file that fit the schema and are not dated in the future. */
export function checkScorecards(entries: readonly Entry[], now: number): { scorecards: Scorecard[]; refused: Refusal[] } {
  const schema = Scorecard.extend({ version: z.number().int().min(1).max(1_000_000), createdAt: timeUpTo(now), author: Name })
  const scorecards: Scorecard[] = []
  const refused: Refusal[] = []
  for (const e of entries) {
    const r = schema.safeParse(e.value)
    if (!r.success) refused.push({ line: e.line, callId: null, part: 'entry', reason: `scorecard: ${reasonOf(r.error)}` })
    else if (new Set(r.data.criteria.map((c) => c.id)).size !== r.data.criteria.length)
      refused.push({ line: e.line, callId: null, part: 'entry', reason: 'scorecard: two criteria share an id' })
    else scorecards.push(r.data)
  }
  return { scorecards, refused }
}

/**
 * The annotations of the file that an in-app save would have accepted, scores computed again
 * from the scorecard version they name (in the cache, or added from the file just before).
 * A score that cannot be computed so (its scorecard or version is unknown here, or an answer
 * is off its criterion's scale) is left out and reported, and the entry's status, tags and
 * note are imported: a CSV carries no scorecards, so refusing the whole entry would make a
 * scored call's review impossible to hand over by CSV. Importing again once the scorecard is
 * there adds the score (imports merge).
 */
export function checkAnnotations(cache: CallCache, entries: readonly Entry[], now: number): { annotations: Stored[]; refused: Refusal[] } {
  const schema = incomingAnnotation(now)
  const annotations: Stored[] = []
  const refused: Refusal[] = []
  for (const e of entries) {
    const r = schema.safeParse(e.value)
    if (!r.success) {
      refused.push({ line: e.line, callId: callIdOf(e.value), part: 'entry', reason: reasonOf(r.error) })
      continue
    }
    const a = r.data
    let score: Score | null = null
    let scoreAt = a.scoreAt
    if (a.score !== null) {
      const card = cache.review.scorecards.get(a.score.scorecardId, a.score.version)
      try {
        if (!card) throw new CallsightError('NotFound', `scorecard ${a.score.scorecardId} version ${a.score.version} is unknown here`)
        score = scoreOf(card.id, card.version, card.criteria, a.score.answers)
      } catch (err) {
        if (!isCallsightError(err)) throw err
        refused.push({ line: e.line, callId: a.callId, part: 'score', reason: `score: ${err.message}` })
        // 0: the score is not a change the merge takes.
        scoreAt = 0
      }
    }
    annotations.push({ ...a, score, scoreAt })
  }
  return { annotations, refused }
}
