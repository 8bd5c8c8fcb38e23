/** The search language's help built from the account's data, the value check and the help button. */
export const queryLanguageMessages = {
  queryLang: {
    words: 'Words match by their beginning',
    phrase: 'These words in this order, exactly',
    or: 'Either word (or, OR, veya, VEYA, {bar})',
    not: 'Without the second word (-, not, NOT, değil, DEĞİL)',
    group: 'Groups terms; “and”, “ve” or a space joins them',
    field: 'Only in the title (summary: for the summary)',
    equalsOf: 'A value of {name}, by its name or key; case and accents do not matter. Values: {values}',
    compareOf: '{name} of at least this (also >, <, <=); from {min} to {max} here',
    rangeOf: '{name} within a range, ends included',
    callId: 'A call ID pasted whole (or id:…) finds that call',
    operatorWord: 'To search for an operator word itself (ve, or, not, değil), put it in quotes: “ve”.',
    keysTitle: 'Fields in this account',
    keyCalls: '{count} call | {count} calls',
    loading: 'Reading examples from your calls…',
    noData: 'Sync some calls to see examples from your own data.',
    valueWarning: 'No value “{value}” for {field}; values: {values}.',
    helpButton: 'Search help (?)',
    callFound: 'Call {id} found.'
  }
}
