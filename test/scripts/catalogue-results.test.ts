/**
 * The catalogue generator reads a method's result from its page as the docs write it: the example answer of the
 * "Response Handling" section, else the `result` row of its Returned Data table.
 */
import { describe, expect, it } from 'vitest'
import { resultType } from '../../scripts/catalogue/emit-catalogue.js'
import { parsePage } from '../../scripts/catalogue/parse-page.js'

/** A method page as the docs lay one out, with `answer` as its Response Handling section. */
function page(method: string, answer: string): string {
  return [
    `# Do Something ${method}`,
    '',
    '> Scope: [`crm`](../scopes/permissions.md)',
    '',
    '## Method Parameters',
    '',
    '#|',
    '|| **Name**',
    '`type` | **Description** ||',
    '|| **id***',
    '[`integer`](../data-types.md) | Identifier ||',
    '|#',
    '',
    '## Response Handling',
    '',
    answer,
    '',
    '## Error Handling',
    '',
    '```json',
    '{ "error": "NOT_FOUND", "result": "not this one" }',
    '```',
  ].join('\n')
}

/** The result type the generator writes for a page with this answer section. */
function typeOf(answer: string, method = 'crm.thing.get'): string | undefined {
  const parsed = parsePage('api-reference/crm/thing.md', page(method, answer))
  if (parsed.method === null) throw new Error('the page documents no method')
  return resultType(parsed.method)
}

const json = (value: unknown): string =>
  ['```json', JSON.stringify({ result: value, time: {} }, null, 2), '```'].join('\n')

describe('catalogue results', () => {
  it('types scalars as the example sends them', () => {
    expect(typeOf(json(394), 'crm.thing.add')).toBe('number')
    expect(typeOf(json(true), 'crm.thing.update')).toBe('boolean')
    expect(typeOf(json('2026-01-01T00:00:00+00:00'), 'server.time')).toBe('string')
  })

  it('an object: its own id required, other fields optional, typed as sent ("ID": "410" is a numeric string), other keys allowed', () => {
    expect(typeOf(json({ ID: '410', OPENED: true, LEAD_ID: null }))).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the type written out
      '{ ID: `${number}`; OPENED?: boolean; LEAD_ID?: unknown; [key: string]: unknown }',
    )
  })

  it('rows merged over the list, a wrapper such as { items } kept required', () => {
    expect(
      typeOf(
        json({
          items: [
            { id: 1, lastName: null },
            { id: 2, lastName: 'Weber' },
          ],
        }),
        'crm.thing.list',
      ),
    ).toBe(
      '{ items: Array<{ id: number; lastName?: string | null; [key: string]: unknown }>; [key: string]: unknown }',
    )
  })

  it('an object keyed by ids, or a description of fields, is a record', () => {
    expect(typeOf(json({ '12': { ID: '12' }, '14': { ID: '14' } }))).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the type written out
      'Record<string, { ID: `${number}`; [key: string]: unknown }>',
    )
    const field = { type: 'string', isRequired: false }
    expect(
      typeOf(json({ ID: field, TITLE: field, OPENED: { type: 'char', isRequired: true }, NAME: field })),
    ).toBe('Record<string, { type?: string; isRequired?: boolean; [key: string]: unknown }>')
  })

  it('without an example answer, the type of the result row of the table; without either, nothing', () => {
    const table = ['### Returned Data', '', '#|', '|| **Name**', '`type` | **Description** ||']
    const row = ['|| **result**', '[`integer`](../data-types.md) | The identifier ||', '|#'].join('\n')
    expect(typeOf([...table, row].join('\n'), 'crm.thing.add')).toBe('number')
    expect(typeOf('The method returns what it returns.')).toBeUndefined()
    expect(typeOf(['```json', '{ "result": [...] }', '```'].join('\n'))).toBeUndefined()
  })
})
