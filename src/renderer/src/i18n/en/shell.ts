/** English messages for the app frame: names, navigation, status bar, sign-in, errors, shared words, shortcuts, pickers, field names. */
export const shellMessages = {
  app: {
    name: 'Callsight',
    tagline: 'Recorded calls, searchable offline',
    skipToContent: 'Skip to content',
    loading: 'Loading…'
  },
  nav: {
    search: 'Search',
    sync: 'Sync',
    insight: 'Insight',
    settings: 'Settings',
    shortcuts: 'Keyboard shortcuts',
    main: 'Main navigation',
    review: 'Review'
  },
  status: {
    online: 'Online',
    offline: 'Offline',
    offlineHint: 'The service cannot be reached. Local search keeps working on the cache.',
    cacheFresh: 'Cache synced {age}',
    cacheNever: 'Cache never synced',
    firstSyncStopped: 'First sync stopped at {time}',
    startContinues: 'Start continues',
    cacheCalls: '{count} call cached | {count} calls cached',
    demo: 'Demo',
    relogin: 'Sign in again to sync',
    zone: 'Times in {zone}',
    teamAsOf: 'Team cache as of {time}',
    teamNever: 'Team cache not pulled yet',
    teamNext: 'next {time}',
    teamFailing: 'The last pull failed: {message}'
  },
  accounts: {
    switcherLabel: 'Account: {name}. Switch account',
    add: 'Add account',
    manage: 'Manage accounts…',
    needsSignIn: 'Sign in again to use it',
    switched: 'Switched to {name}',
    switchFailed: 'Could not switch accounts'
  },
  signIn: {
    addTitle: 'Add an account',
    addSubtitle: 'Sign in to another service or user. The accounts already here stay signed in, each with its own cache.',
    cancelAdd: 'Back to {name}',
    otherAccounts: 'Accounts on this computer',
    useAccount: 'Use {name}',
    title: 'Sign in to the call service',
    subtitle: 'Your calls are synced to this computer, so search works offline afterwards.',
    baseUrl: 'Service address',
    baseUrlHelp: 'For example https://calls.example.com',
    username: 'User name or e-mail',
    password: 'Password',
    submit: 'Sign in',
    signingIn: 'Signing in…',
    demo: 'Try the demo',
    demoHelp: 'Starts a local demo service with generated calls. No account needed.',
    or: 'or',
    badUrl: 'Use an https:// address (plain http only for this computer).',
    badUrlField: '{field}: use an address that starts with https:// (plain http only for this computer). Your password is kept.',
    refusedAdvice: 'Nothing answers at this address: check the address and port, and that the service is running.',
    required: 'Fill in every field.',
    noticeTitle: 'Note',
    errorTitle: 'Could not sign in',
    /** The session's notice (SessionState.noticeCode): why the sign-in lasts only while the app runs, or must be repeated. */
    notice: {
      browserMode:
        'Callsight is running in your browser (callsight serve), which keeps your sign-in only while it runs. You will have to sign in again after it restarts.',
      noKeyring:
        'No system keyring (such as GNOME Keyring or KWallet) was found, so Callsight keeps your sign-in only while it runs. You will have to sign in again after a restart.',
      encryptionUnavailable:
        "The system's secure storage is not available, so Callsight keeps your sign-in only while it runs. You will have to sign in again after a restart.",
      notSaved:
        'Your sign-in could not be saved on this computer. You stay signed in until Callsight closes; then you will need to sign in again.',
      reloginRequired: 'Your session with the service has ended; please sign in again.'
    }
  },
  errors: {
    InvalidCredentials: 'The user name or password is wrong. Check them and try again.',
    ReloginRequired: 'Your session has ended. Sign in again to continue syncing.',
    IpNotAllowed:
      'The service refused this computer’s network address. Ask the service operators to allow the public (egress) IP address or range this workstation connects from, then try again.',
    RateLimited: 'The service is limiting requests. Wait {seconds} seconds, then try again.',
    Validation: 'The service rejected the request: {fields}',
    UnknownCallType: 'The service does not know the call type “{callType}”. Refresh the call types and pick again.',
    UnknownCallTypeLocal:
      'No synced or imported call type is called “{callType}”. Known: {known}. Import the call type catalog in Settings, or sync that type.',
    Unauthorized: 'The service did not accept the session. Sign in again.',
    ServerError: 'The service had an internal error (HTTP {status}). Try again later; if it persists, tell the service operators.',
    Network: 'The service is unreachable. Check the address and your network connection.',
    Timeout: 'The service took too long to answer. Try again, or sync a shorter range.',
    MalformedResponse: 'The service sent a reply the app could not read.',
    Cancelled: 'Cancelled.',
    InvalidInput: 'Some input is not valid: {fields}',
    NotSignedIn: 'Sign in first.',
    NotFound: 'Not found.',
    DenseSecond: 'Too many calls fall in a single second to page through them safely.',
    DatabaseTooNew: 'The local cache was written by a newer version of Callsight. Update the app, or clear the cache in Settings.',
    Storage: 'The local cache could not be read or written.',
    Forbidden: 'That action is not allowed.',
    TeamSearchOff:
      'The team cache does not search: its operator has not turned search on. Search the calls this computer holds, or ask the operator to turn the team cache search on.',
    Internal: 'Something went wrong inside the app.'
  },
  // The same codes where the team cache (PostgreSQL) answered, not the service or the local cache.
  teamErrors: {
    InvalidCredentials: 'The team cache refused the role or its password. Check them and try again.',
    Network:
      'The team cache cannot be reached, or its server ended the connection. Check its address and that PostgreSQL is running, then try again: a pull continues where it stopped.',
    Timeout: 'The team cache took too long to answer. Try again: a pull continues where it stopped.',
    DatabaseTooNew: 'The team cache was set up by a newer version of Callsight. Update the app on this computer.',
    Storage: 'The team cache or the local cache could not be read or written.'
  },
  common: {
    justNow: 'just now',
    cancel: 'Cancel',
    close: 'Close',
    save: 'Save',
    remove: 'Remove',
    apply: 'Apply',
    clear: 'Clear',
    copy: 'Copy',
    copied: 'Copied',
    yes: 'Yes',
    no: 'No',
    any: 'Any',
    all: 'All',
    none: 'None',
    retry: 'Retry',
    refresh: 'Refresh',
    never: 'never',
    calls: '{count} calls',
    error: 'Error'
  },
  shortcuts: {
    title: 'Keyboard shortcuts',
    focusSearch: 'Focus the search bar',
    moveRow: 'Move through results',
    extendSelection: 'Extend the selection',
    toggleRow: 'Select or unselect the current row',
    open: 'Open the call detail',
    close: 'Close the detail or a dialog',
    prevNext: 'Previous / next call in the detail',
    selectAll: 'Select all results',
    export: 'Export',
    goSearch: 'Go to Search',
    goSync: 'Go to Sync',
    goInsight: 'Go to Insight',
    goReview: 'Go to Review',
    goSettings: 'Go to Settings',
    help: 'Show this list',
    reviewNextPrev: 'Review mode: next / previous call',
    reviewAnswer: 'Review mode: answer the focused criterion',
    reviewTag: 'Review mode: add a tag',
    reviewNote: 'Review mode: write a note',
    reviewReviewed: 'Review mode: mark reviewed',
    reviewFollowUp: 'Review mode: mark for follow-up',
    reviewUndo: 'Review mode: undo the last change',
    reviewNextUnreviewed: 'Review mode: next unreviewed call',
    reviewRemove: 'Review mode: remove the call from the list (asks first)',
    reviewList:
      'Review mode: show or hide the calls in the list (there: ↑ ↓ move, Space selects, Shift + click a range, Del removes the selected, asking first)',
    click: 'click',
    space: 'Space',
    inDetail: 'detail'
  },
  picker: {
    today: 'Today',
    clear: 'Clear',
    weekHeader: 'Wk',
    noResults: 'No results found',
    noOptions: 'No options',
    chooseYear: 'Choose year',
    chooseMonth: 'Choose month',
    chooseDate: 'Choose date',
    prevMonth: 'Previous month',
    nextMonth: 'Next month',
    prevYear: 'Previous year',
    nextYear: 'Next year',
    prevDecade: 'Previous decade',
    nextDecade: 'Next decade',
    previous: 'Previous',
    next: 'Next',
    selected: '{count} selected'
  },
  fields: {
    durationSeconds: 'Duration (m:ss)',
    durationSecondsExport: 'Duration (s)',
    agentName: 'Agent',
    teamName: 'Team',
    language: 'Language',
    direction: 'Direction',
    callType: 'Call type'
  }
}
