import type Database from 'better-sqlite3'
import { AnnotationStore } from './annotation-store'
import { AssignmentStore } from './assignment-store'
import { CalibrationStore } from './calibration-store'
import { LeadReads } from './lead-reads'
import { ReviewListStore } from './list-store'
import { ReviewJournal, type ReviewChanges } from './review-journal'
import { ScorecardStore } from './scorecard-store'
import { ShareStore } from './share-store'

/**
 * The user's review work in one account's cache, built in one place: adding a store touches
 * this file only. Never touched by writes of calls or by the cache's clear() unless asked
 * (docs/review.md).
 */
export class ReviewStores {
  /** Writes to annotations and lists through this connection: queries with review filters follow it. */
  private readonly journal = new ReviewJournal()
  readonly annotations: AnnotationStore
  /** What this cache shares through the team cache: outbox, the team's values seen, conflicts. */
  readonly share: ShareStore
  readonly scorecards: ScorecardStore
  readonly reviewLists: ReviewListStore
  /** Which reviewer reviews which call of a list. */
  readonly assignments: AssignmentStore
  /** Calibration sessions, apart from the calls' annotations. */
  readonly calibration: CalibrationStore
  /** Insight's lead view: scored annotations with reviewer and agent. */
  readonly leadReads: LeadReads

  constructor(db: Database.Database) {
    this.share = new ShareStore(db, (calls) => this.journal.record(calls))
    this.annotations = new AnnotationStore(db, (calls) => this.journal.record(calls), this.share)
    this.scorecards = new ScorecardStore(db)
    this.reviewLists = new ReviewListStore(db, () => this.journal.record([], true))
    this.assignments = new AssignmentStore(db)
    this.calibration = new CalibrationStore(db)
    this.leadReads = new LeadReads(db)
  }

  /** Moves with every write to annotations or review lists through this connection. */
  get version(): number {
    return this.journal.version
  }

  /** What this connection's review writes after review version `version` changed; null when not known. */
  changesSince(version: number): ReviewChanges | null {
    return this.journal.since(version)
  }

  /** Deletes the review work a clear without keepReview drops. */
  deleteAll(): void {
    this.annotations.deleteAll()
    this.reviewLists.deleteAll()
    this.calibration.deleteAll()
  }
}
