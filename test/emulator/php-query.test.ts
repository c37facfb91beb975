import { describe, expect, it } from 'vitest'
import { PHP_QUERY_LIMITS, parsePhpQuery, phpBool, phpMap } from '../../src/testing/php-query.js'
import { emulator, postForm } from './helpers.js'

/** How deep a parsed value nests. */
function depthOf(value: unknown): number {
  let depth = 0
  let node = value
  while (typeof node === 'object' && node !== null) {
    depth += 1
    node = Object.values(node)[0]
  }
  return depth
}

describe('PHP-style parameters', () => {
  it('parses bracket keys, lists and RFC 3986 encoding like parse_str', () => {
    expect(
      parsePhpQuery(
        'filter%5B%3EID%5D=5&select[0]=ID&select[1]=NAME&order[ID]=ASC&a[]=x&a[]=y&t=John%26Martin+Jr&flag',
      ),
    ).toEqual({
      filter: { '>ID': '5' },
      select: ['ID', 'NAME'],
      order: { ID: 'ASC' },
      a: ['x', 'y'],
      t: 'John&Martin Jr',
      flag: '',
    })
    expect(parsePhpQuery('__proto__[x]=1&a[constructor]=2')).toEqual({})
    expect(parsePhpQuery('m[0][ID]=1&m[1][ID]=2')).toEqual({ m: [{ ID: '1' }, { ID: '2' }] })
  })

  it('serialises maps like json_encode and casts booleans like PHP', () => {
    expect(phpMap([])).toEqual([])
    expect(
      phpMap([
        ['0', 'a'],
        ['1', 'b'],
      ]),
    ).toEqual(['a', 'b'])
    expect(phpMap([['1', 'b']])).toEqual({ 1: 'b' })
    expect(phpMap([['x', 1]])).toEqual({ x: 1 })
    expect([0, '0', '', false, null, undefined, []].map(phpBool)).toEqual(Array(7).fill(false))
    expect([1, '1', 'false', true, 'N'].map(phpBool)).toEqual(Array(5).fill(true))
  })

  it('a repeated name keeps its last value; a gap in indices keeps a map keyed by index', () => {
    expect(parsePhpQuery('a=1&a=2&b[0]=x&b[0]=y')).toEqual({ a: '2', b: ['y'] })
    expect(parsePhpQuery('a[1]=x&a[3]=y')).toEqual({ a: { 1: 'x', 3: 'y' } })
    expect(parsePhpQuery('a[99999999999]=x')).toEqual({ a: { 99999999999: 'x' } })
  })
})

describe('untrusted form bodies', () => {
  it('never write to Object.prototype, whatever the brackets say', async () => {
    const hostile = [
      '__proto__[polluted]=1',
      'constructor[prototype][polluted]=1',
      'a[__proto__][polluted]=1',
      'a[constructor][prototype][polluted]=1',
      'a[][__proto__][polluted]=1',
    ].join('&')
    const parsed = parsePhpQuery(hostile)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(JSON.stringify(parsed)).not.toContain('polluted')
    // Through the emulator's HTTP server too: the call is answered as usual.
    const emu = await emulator()
    const { accessToken } = emu.issueAuthParams()
    const answer = await postForm(`${emu.clientEndpoint}user.current`, `auth=${accessToken}&${hostile}`)
    expect(answer.status).toBe(200)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('deep nesting is cut at the depth limit instead of exhausting the stack', async () => {
    const deep = `a${'[b]'.repeat(100_000)}=1`
    expect(depthOf(parsePhpQuery(deep))).toBeLessThanOrEqual(PHP_QUERY_LIMITS.depth + 2)
    const emu = await emulator()
    const { accessToken } = emu.issueAuthParams()
    const answer = await postForm(`${emu.clientEndpoint}user.current`, `auth=${accessToken}&${deep}`)
    expect(answer.status).toBe(200)
  })

  it('reads at most parameterLimit fields of a body', () => {
    const fields = Array.from({ length: PHP_QUERY_LIMITS.parameterLimit + 500 }, (_, index) => `f${index}=1`)
    const parsed = parsePhpQuery(fields.join('&'))
    expect(Object.keys(parsed)).toHaveLength(PHP_QUERY_LIMITS.parameterLimit)
    expect(parsed.f0).toBe('1')
    expect(parsed[`f${PHP_QUERY_LIMITS.parameterLimit}`]).toBeUndefined()
  })
})
