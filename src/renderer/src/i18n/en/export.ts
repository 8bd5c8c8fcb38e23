/** English messages for the export dialog. */
export const exportMessages = {
  exportDialect: {
    label: 'CSV separator',
    comma: 'Comma, decimal point',
    semicolon: 'Semicolon, decimal comma',
    help: 'Turkish Excel and LibreOffice open a file with ";" and decimal commas directly; English ones expect "," and points.',
    sidecar: 'Also save the query and its coverage (.meta.json)'
  },
  export: {
    title: 'Export calls',
    what: 'What to export',
    selected: 'Selected calls ({count})',
    allResults: 'All results of the query ({count})',
    format: 'Format',
    columns: 'Columns',
    col_callId: 'Call ID',
    col_callDate: 'Date',
    col_title: 'Title',
    col_summary: 'Summary',
    col_analysis: 'Analysis parameters',
    col_review: 'Review (status, tags, note, score)',
    col_extra: 'Other fields (agent, duration, language…)',
    extraFields: 'Other fields to write:',
    layout: 'Analysis layout',
    wide: 'Wide: one column per parameter',
    long: 'Long: one row per parameter',
    start: 'Export…',
    writing: 'Writing {written} of {total}',
    cancel: 'Cancel export',
    done: 'Export finished',
    doneDetail: '{count} call written to {file} | {count} calls written to {file}',
    downloadedDetail:
      '{count} call in {file}, saved by your browser with your downloads | {count} calls in {file}, saved by your browser with your downloads',
    failed: 'Export failed',
    cancelled: 'Export cancelled; no file was left behind.',
    cancelledStreamed: 'Export cancelled. Your browser shows its download as failed: that file is incomplete.',
    failedStreamed: 'Your browser shows this download as failed: that file is incomplete. Export again.',
    streaming: 'Your browser is downloading the file while it is written; it is complete when the bar is full.',
    nothing: 'Select calls first, or export all results.',
    zoneNote: 'Dates are written in {zone}.',
    englishHeaders: 'English headers',
    englishHeadersHelp: 'Write column headers and the metadata sheet in English, for tools that read them by name.',
    openFile: 'Open file',
    showInFolder: 'Show in folder'
  }
}
