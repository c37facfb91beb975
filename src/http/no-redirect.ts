/**
 * The rule for every request that carries a secret or a token (the refresh, the code exchange, an event's proof,
 * every REST call): it follows no redirect, whatever the adapter. Fetch follows redirects by default and sends a
 * 307/308's body again, to any host; `redirect: 'manual'` makes it hand the 3xx answer back instead, and the client
 * refuses that answer. `undici.request` (the default adapter) follows nothing. An adapter that follows a redirect
 * whatever it is given is caught after the fact (the answer says `redirected`): its answer is refused too, though
 * the request may already have reached the other host (docs/security.md). An answer from another URL than the one
 * asked is not taken for a redirect: an adapter may route requests elsewhere itself (a proxy, a test's rewrite).
 */

/** `redirect` of every request that carries a secret or a token: a redirect comes back as an answer. */
export const NO_REDIRECT: RequestRedirect = 'manual'

/** A redirect refused on the way; each caller turns it into its own `AjaxError` (`JSSDK_REDIRECT_REFUSED`). */
export class RedirectRefusal extends Error {
  /** The answer's HTTP status (0 for an opaque redirect). */
  readonly status: number
  /** The origin the redirect named, never its path or query; `an unnamed location` when it named none. */
  readonly location: string
  /** The adapter followed the redirect: the request may have reached {@link location}. */
  readonly followed: boolean

  constructor(status: number, location: string, followed: boolean) {
    super(`redirect to ${location} refused`)
    this.name = 'RedirectRefusal'
    this.status = status
    this.location = location
    this.followed = followed
  }
}

/** Whether an HTTP status is a redirect: 3xx, except 304 (a cache's answer, which names no other place). */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304
}

/** What a redirect names: the origin of `location` resolved against the request's URL, never its path or query. */
export function locationOrigin(location: string | null | undefined, requestUrl: string): string {
  if (!location) return 'an unnamed location'
  try {
    const { origin } = new URL(location, requestUrl)
    return origin === 'null' ? 'an unnamed location' : origin
  } catch {
    return 'an unnamed location'
  }
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

/** Lets a refused answer's body go without reading it. */
function discard(response: Response): void {
  try {
    response.body?.cancel().catch(() => {})
  } catch {
    // A locked or odd body: nothing to let go.
  }
}

/**
 * Throws a {@link RedirectRefusal} when `response` to a request sent to `requestUrl` is a redirect (a 3xx, an opaque
 * redirect) or comes from where a redirect led (`redirected`, its `url` naming the origin); its body is let go
 * unread.
 */
export function refuseRedirect(response: Response, requestUrl: string): void {
  if (response.type === 'opaqueredirect') {
    discard(response)
    throw new RedirectRefusal(response.status, 'an unnamed location', false)
  }
  if (isRedirectStatus(response.status)) {
    discard(response)
    throw new RedirectRefusal(
      response.status,
      locationOrigin(response.headers.get('location'), requestUrl),
      false,
    )
  }
  if (response.redirected) {
    discard(response)
    const answered = response.url === '' ? null : originOf(response.url)
    throw new RedirectRefusal(response.status, answered ?? 'an unnamed location', true)
  }
}
