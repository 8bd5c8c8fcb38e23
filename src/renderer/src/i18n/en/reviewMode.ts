/** Review mode's call header, its spoken moves between criteria and a failed critical criterion. */
export const reviewModeMessages = {
  reviewMode: {
    callFields: 'Call details',
    moved: '{criterion}: {value} saved. Next: {next}.',
    done: '{criterion}: {value} saved. Every criterion is answered.',
    rejected: '{value} is not an answer for {criterion} ({min}–{max}); nothing changed.',
    failed: 'Failed: a critical criterion failed',
    failedShort: 'failed'
  },
  listCalls: {
    toggle: 'Calls in the list (L)',
    title: 'Calls in “{name}”',
    selectAll: 'Select all',
    ticked: '{count} selected',
    removeSelected: 'Remove selected (Del)',
    close: 'Close (Esc)',
    tick: 'Select {title}',
    range: '{from}–{to} of {size}',
    prevPage: 'Previous page',
    nextPage: 'Next page',
    noTitle: 'Not in the cache',
    keysHint: '↑ ↓ move · Space select (Shift: a range) · Enter open · Del remove selected · Esc close'
  }
}
