import { afterAll, describe, expect, it } from 'vitest'
import { PortalFleet } from '../../src/index.js'

// Which rule refused a hostile event body, word for word: each refusal names its reason, and a body that passes one
// rule reaches the next (a body without auth[...] fields is refused last, after the whole body was read, so that
// message shows the parser accepted everything before it). No event here reaches a store or a server.
const fleet = new PortalFleet({ oAuthSecret: { clientId: 'client-id', clientSecret: 'client-secret' } })
afterAll(() => fleet.destroy())

/** The message `handleEvent` refuses `body` with. */
async function refusal(body: unknown): Promise<string> {
  const outcome = await fleet.handleEvent(body).then(
    () => 'accepted',
    (error: unknown) => (error as Error).message,
  )
  return outcome
}

const NO_AUTH = 'handleEvent: the body has no auth[...] fields'

/** A group nested `depth` levels under `data`, holding `x`. */
function nested(depth: number): Record<string, unknown> {
  let group: Record<string, unknown> = { leaf: 'x' }
  for (let level = 2; level < depth; level += 1) group = { g: group }
  return group
}

describe('handleEvent: the reason a hostile body is refused', () => {
  it('names nested too deep, as brackets or as groups; five names are the most', async () => {
    expect(await refusal('event=A&data[a][b][c][d]=x')).toBe(NO_AUTH)
    expect(await refusal('event=A&data[a][b][c][d][e]=x')).toBe(
      'handleEvent: field name "data[a][b][c][d][e]" is nested too deep',
    )
    expect(await refusal({ event: 'A', data: nested(5) })).toBe(NO_AUTH)
    expect(await refusal({ event: 'A', data: nested(6) })).toBe(
      'handleEvent: field name "leaf" is nested too deep',
    )
  })

  it('malformed names, each with its reason', async () => {
    expect(await refusal('event=A&auth[x]y=1')).toBe('handleEvent: field name "auth[x]y" is malformed')
    expect(await refusal('event=A&auth[x=1')).toBe(
      'handleEvent: field name "auth[x" is malformed or asks for a list',
    )
    expect(await refusal('event=A&auth[xyz=1')).toBe(
      'handleEvent: field name "auth[xyz" is malformed or asks for a list',
    )
    expect(await refusal('event=A&auth[]=1')).toBe(
      'handleEvent: field name "auth[]" is malformed or asks for a list',
    )
    expect(await refusal('event=A&auth[a[b]=1')).toBe(
      'handleEvent: field name "auth[a[b]" is malformed or asks for a list',
    )
    expect(await refusal('event=A&a]b=1')).toBe('handleEvent: field name "a]b" is malformed')
    expect(await refusal('event=A&[x]=1')).toBe('handleEvent: field name "[x]" is malformed')
    expect(await refusal({ event: 'A', '': 'x' })).toBe('handleEvent: field name "" is malformed')
    expect(await refusal('event=A&data[prototype]=1')).toBe(
      'handleEvent: field name "data[prototype]" is not allowed',
    )
  })

  it('a long name is shown cut at 40 characters', async () => {
    const forty = 'n'.repeat(40)
    expect(await refusal(`event=A&${forty}[]=1`)).toBe(
      `handleEvent: field name "${forty}..." is malformed or asks for a list`,
    )
    expect(await refusal(`event=A&data[${forty}]=1&data[${forty}]=2`)).toBe(
      `handleEvent: field "data.${'n'.repeat(35)}..." is given more than once`,
    )
    const exactly = 'm'.repeat(38)
    expect(await refusal(`event=A&${exactly}[]=1`)).toBe(
      `handleEvent: field name "${exactly}[]" is malformed or asks for a list`,
    )
  })

  it('at most 256 fields and 64 K characters, names counted with values', async () => {
    const fields = (count: number): string =>
      `event=A&${Array.from({ length: count - 1 }, (_, index) => `d${index}=1`).join('&')}`
    expect(await refusal(fields(256))).toBe(NO_AUTH)
    expect(await refusal(fields(257))).toBe('handleEvent: the body has more than 256 fields')
    // `event` + `A` + `data` + `N` = 11 characters, the rest is the value.
    expect(await refusal({ event: 'A', data: { N: 'x'.repeat(65_536 - 11) } })).toBe(NO_AUTH)
    const over = 'handleEvent: the body is larger than 65536 characters'
    expect(await refusal({ event: 'A', data: { N: 'x'.repeat(65_536 - 10) } })).toBe(over)
    // `event` + `A` + `data` + `NAME` = 14: the names push it over.
    expect(await refusal({ event: 'A', data: { NAME: 'x'.repeat(65_536 - 13) } })).toBe(over)
    // A raw body is read when its text is under three times the limit (percent-encoding triples a character).
    expect(await refusal(`event=A&data[N]=${'x'.repeat(30_000)}`)).toBe(NO_AUTH)
    expect(await refusal(`event=A&data[N]=${'x'.repeat(3 * 65_536)}`)).toBe(over)
    // Percent-encoded UTF-8 takes up to nine characters for one: the raw text is bounded on its own, at three times
    // the limit exactly.
    const euros = (length: number): string => {
      const head = 'event=A&data[N]='
      const count = Math.floor((length - head.length) / 9)
      return `${head}${'%E2%82%AC'.repeat(count)}${'x'.repeat(length - head.length - 9 * count)}`
    }
    expect(euros(3 * 65_536)).toHaveLength(3 * 65_536)
    expect(await refusal(euros(3 * 65_536))).toBe(NO_AUTH)
    expect(await refusal(euros(3 * 65_536 + 1))).toBe(over)
  })

  it('a value and a group of the same name, a name given twice', async () => {
    expect(await refusal('event=A&data=x&data[a]=y')).toBe(
      'handleEvent: field "data.a" is both a value and a group',
    )
    expect(await refusal('event=A&data[a]=1&data[a]=2')).toBe(
      'handleEvent: field "data.a" is given more than once',
    )
  })

  it('values that are no string: finite numbers are taken as text, anything else is named', async () => {
    expect(await refusal({ event: 'A', data: { N: 5 } })).toBe(NO_AUTH)
    // Groups stay groups: with auth present, the next check is its member id.
    expect(await refusal({ event: 'A', auth: { x: '1' }, data: { N: 5 } })).toBe(
      'handleEvent: auth[member_id] is missing or not a member id',
    )
    expect(await refusal({ event: 'A', 'data[N]': 5, data: { N: '5' } })).toBe(
      'handleEvent: field "data.N" is given more than once',
    )
    expect(await refusal({ event: 'A', data: { N: Number.POSITIVE_INFINITY } })).toBe(
      'handleEvent: field "data.N" must be a string; got number',
    )
    expect(await refusal({ event: 'A', data: { N: ['a'] } })).toBe(
      'handleEvent: field "data.N" must be a string; got a list',
    )
    expect(await refusal({ event: 'A', data: { N: new Date(0) } })).toBe(
      'handleEvent: field "data.N" must be a string; got object',
    )
    expect(await refusal({ event: 'A', data: { N: null } })).toBe(
      'handleEvent: field "data.N" must be a string; got object',
    )
    expect(await refusal({ event: 'A', data: { N: true } })).toBe(
      'handleEvent: field "data.N" must be a string; got boolean',
    )
    // A list or a function without a prototype is still no group.
    const bareList = Object.setPrototypeOf(['a'], null) as unknown
    expect(await refusal({ event: 'A', data: { N: bareList } })).toBe(
      'handleEvent: field "data.N" must be a string; got a list',
    )
    const bareFunction = Object.setPrototypeOf(() => 'a', null) as unknown
    expect(await refusal({ event: 'A', data: { N: bareFunction } })).toBe(
      'handleEvent: field "data.N" must be a string; got function',
    )
    // A group without a prototype is a group.
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { N: 'x' })
    expect(await refusal({ event: 'A', data: bare })).toBe(NO_AUTH)
    expect(await refusal(Object.assign(Object.create(null) as object, { event: 'A' }))).toBe(NO_AUTH)
  })

  it('bodies of the wrong kind, and one whose getter throws', async () => {
    const wrongKind = 'handleEvent: body must be the form-encoded string, a URLSearchParams or an object'
    expect(await refusal(null)).toBe(wrongKind)
    expect(await refusal(42)).toBe(wrongKind)
    expect(await refusal(['event', 'A'])).toBe(wrongKind)
    expect(await refusal(new Date(0))).toBe(wrongKind)
    expect(await refusal(new URLSearchParams('event=A'))).toBe(NO_AUTH)
    const throwing = {}
    Object.defineProperty(throwing, 'event', {
      enumerable: true,
      get() {
        throw new Error('getter boom')
      },
    })
    expect(await refusal(throwing)).toBe(
      'handleEvent: the body object could not be read (a getter or proxy threw)',
    )
  })

  it('the event code, the auth group and the data group', async () => {
    const code = 'handleEvent: event must be an event code such as ONAPPINSTALL'
    expect(await refusal('auth[member_id]=a')).toBe(code)
    expect(await refusal('event[a]=x')).toBe(code)
    expect(await refusal('event=ONAPPINSTALL!')).toBe(code)
    expect(await refusal('event=!ONAPPINSTALL')).toBe(code)
    expect(await refusal(`event=${'E'.repeat(64)}`)).toBe(NO_AUTH)
    expect(await refusal(`event=${'E'.repeat(65)}`)).toBe(code)
    expect(await refusal('event=A&auth=flat')).toBe(NO_AUTH)
    expect(await refusal('event=A&auth[x][y]=1')).toBe('handleEvent: field "auth.x" must be a string')
    expect(await refusal('event=A&auth[x]=1&data=flat')).toBe('handleEvent: data must be a group of fields')
  })
})
