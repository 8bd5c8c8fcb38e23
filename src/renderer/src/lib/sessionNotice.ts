import type { SessionState } from '../../../shared/domain'

/**
 * The message key of the session's notice. The core also sends the sentence in English
 * (`notice`, for logs and the CLI); the UI shows it by its code, in the UI's language.
 */
export function sessionNoticeKey(session: SessionState | null): `signIn.notice.${NonNullable<SessionState['noticeCode']>}` | null {
  return session?.noticeCode ? `signIn.notice.${session.noticeCode}` : null
}
