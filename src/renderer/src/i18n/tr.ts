import type { Messages } from './en'
import { shellMessages } from './tr/shell'
import { searchMessages } from './tr/search'
import { syncMessages } from './tr/sync'
import { insightMessages } from './tr/insight'
import { exportMessages } from './tr/export'
import { settingsMessages } from './tr/settings'
import { reviewMessages } from './tr/review'
import { queryLanguageMessages } from './tr/queryLanguage'
import { reviewModeMessages } from './tr/reviewMode'
import { teamReviewMessages } from './tr/teamReview'

/** Turkish messages: the same keys and placeholders as en.ts (checked by a unit test). */
export const tr: Messages = {
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
