import { describe, expect, it } from 'vitest'
import { encodeRfc3986, toBatchCommand, toPhpQuery } from '../../src/actions/batch/php-query.js'
import { parsePhpQuery } from '../../src/testing/php-query.js'

describe('v2 batch cmd values: PHP bracket query strings', () => {
  it("encodes per RFC 3986, including !'()*", () => {
    expect(encodeRfc3986("a b!'()*~-_.")).toBe('a%20b%21%27%28%29%2A~-_.')
  })

  it('indices for arrays, names for objects, to any depth; dates as ISO strings', () => {
    expect(
      toPhpQuery({
        filter: { '@ID': [1, 2], LOGIC: 'OR', 0: { '=TITLE': 'a' } },
        fields: { PHONE: [{ VALUE: '+1 555', VALUE_TYPE: 'WORK' }] },
        since: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      }),
    ).toBe(
      'filter%5B0%5D%5B%3DTITLE%5D=a&filter%5B%40ID%5D%5B0%5D=1&filter%5B%40ID%5D%5B1%5D=2&filter%5BLOGIC%5D=OR' +
        '&fields%5BPHONE%5D%5B0%5D%5BVALUE%5D=%2B1%20555&fields%5BPHONE%5D%5B0%5D%5BVALUE_TYPE%5D=WORK' +
        '&since=2026-01-02T03%3A04%3A05.000Z',
    )
  })

  it('a method without parameters is sent bare', () => {
    expect(toBatchCommand('user.current', {})).toBe('user.current')
    expect(toBatchCommand('user.get', { ID: 1 })).toBe('user.get?ID=1')
  })

  it("reads back through PHP's parse_str rules to the same strings", () => {
    const params = {
      title: 'R&D = 50% "quoted" +plus',
      list: ['x', 'y z'],
      nested: { deep: { deeper: ['ä', '€'] } },
      ref: '$result[first][items][0][id]',
    }
    expect(parsePhpQuery(toPhpQuery(params))).toEqual(params)
  })
})
