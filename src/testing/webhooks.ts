import { randomBytes, timingSafeEqual } from 'node:crypto'

/** An inbound webhook the emulator accepts. */
export interface WebhookRecord {
  /** Sequential id, used as the webhook's "application" for the operating limit. */
  id: number
  userId: number
  secret: string
  scope: string
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** Random lowercase alphanumeric string of `length` characters. */
export function randomAlphanumeric(length: number): string {
  const bytes = randomBytes(length)
  let out = ''
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length]
  return out
}

/** The webhooks created with `createWebhook`. */
export class WebhookStore {
  readonly #hooks: WebhookRecord[] = []

  /** Create a webhook for the user (16-character secret, like the portal's). */
  create(userId: number, scope: string): WebhookRecord {
    const hook = { id: this.#hooks.length + 1, userId, secret: randomAlphanumeric(16), scope }
    this.#hooks.push(hook)
    return hook
  }

  /** The webhook with this user id and secret (constant-time comparison), if any. */
  verify(userId: number, secret: string): WebhookRecord | undefined {
    const given = Buffer.from(secret)
    return this.#hooks.find((hook) => {
      const expected = Buffer.from(hook.secret)
      return hook.userId === userId && expected.length === given.length && timingSafeEqual(expected, given)
    })
  }
}
