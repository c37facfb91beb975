import { describe, expect, it } from 'vitest'
import { parsePhpQuery, phpBool, phpMap } from '../../src/testing/php-query.js'

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
})
