import { shellMessages } from './en/shell'
import { searchMessages } from './en/search'
import { syncMessages } from './en/sync'
import { insightMessages } from './en/insight'
import { exportMessages } from './en/export'
import { settingsMessages } from './en/settings'
import { reviewMessages } from './en/review'
import { queryLanguageMessages } from './en/queryLanguage'
import { reviewModeMessages } from './en/reviewMode'
import { teamReviewMessages } from './en/teamReview'
import type { Shape } from './shape'

/**
 * English messages, one file per area in ./en/. Turkish (tr.ts) must have exactly the same keys and placeholders; a unit
 * test checks it. vue-i18n syntax: {name} is a placeholder; a literal @, $ or | needs {'@'}.
 */
export const en = {
  ...shellMessages,
  ...searchMessages,
  ...syncMessages,
  ...insightMessages,
  ...exportMessages,
  ...settingsMessages,
  ...reviewMessages,
  ...queryLanguageMessages,
  ...reviewModeMessages,
  ...teamReviewMessages,
  // Two areas fill the `team` namespace: the team cache panel and team review.
  team: { ...syncMessages.team, ...teamReviewMessages.team }
}

export type { MessageTree } from './shape'
/** The shape every language must fill: the same keys, every leaf a string. */
export type Messages = Shape<typeof en>
