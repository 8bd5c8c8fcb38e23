/** Review mode's call header, its spoken moves between criteria and a failed critical criterion. */
export const reviewModeMessages = {
  reviewMode: {
    callFields: 'Call details',
    moved: '{criterion}: {value} saved. Next: {next}.',
    done: '{criterion}: {value} saved. Every criterion is answered.',
    rejected: '{value} is not an answer for {criterion} ({min}–{max}); nothing changed.',
    failed: 'Failed: a critical criterion failed',
    failedShort: 'failed'
  }
}
