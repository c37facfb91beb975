/** What replaces a secret wherever one is found. */
export const REDACTED = '[redacted]'

/** Keys whose values are secrets wherever they appear: in a logged context, in a thrown value. */
export const SECRET_KEY =
  /^(auth|access_?token|refresh_?token|client_?secret|application_?token|authorization|secret|password)$/i
