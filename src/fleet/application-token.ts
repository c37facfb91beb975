import { createHash, timingSafeEqual } from 'node:crypto'

function digest(value: string): Buffer {
  // Stryker disable next-line StringLiteral: a string is hashed as UTF-8 by default, so naming it changes nothing
  return createHash('sha256').update(value, 'utf8').digest()
}

/**
 * Whether an event's `application_token` equals the stored one, in time that does not depend on where they differ:
 * both are hashed first, so that `timingSafeEqual` compares equal-length buffers and not even the length leaks.
 */
export function sameApplicationToken(given: string, stored: string): boolean {
  return timingSafeEqual(digest(given), digest(stored))
}
