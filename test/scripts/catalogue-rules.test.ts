/**
 * The catalogue generator reads the docs' own rules from a page: a method page without a Scope line, either/or
 * parameters, a table whose last row is left unclosed, "Deprecated method" notes and `outdated/` pages, and the
 * errata table for titles that misspell the method.
 */
import { describe, expect, it } from 'vitest'
import { correctedName, NAME_ERRATA } from '../../scripts/catalogue/errata.js'
import { parsePage } from '../../scripts/catalogue/parse-page.js'

/** A method page: title, the lines under it (a Scope line or not, notes), and the parameter table's rows. */
function page(title: string, head: string[], rows: string[], after: string[] = []): string {
  return [
    `# ${title}`,
    '',
    ...head,
    '',
    '## Method Parameters',
    '',
    '#|',
    '|| **Name**',
    '`type` | **Description** ||',
    ...rows,
    '|#',
    '',
    ...after,
  ].join('\n')
}

const WHO = '> Who can execute the method: any user'
const SCOPE = '> Scope: [`lists`](../scopes/permissions.md)'

function parse(path: string, text: string) {
  const { method } = parsePage(path, text)
  if (method === null) throw new Error(`${path}: no method read`)
  return method
}

describe('the generator reads the docs rules', () => {
  it('reads a method page without a Scope line (event.bind): no scope', () => {
    const text = page(
      'Register a New Event Handler event.bind',
      [WHO],
      ['|| **event*** [`string`](../data-types.md) | Event name ||'],
    )
    const method = parse('api-reference/events/event-bind.md', text)
    expect(method).toMatchObject({ name: 'event.bind', scopes: [] })
    expect(method.params?.map((param) => [param.name, param.required])).toEqual([['event', true]])
  })

  it('reads "At least one of the parameters must be specified" as an either/or group', () => {
    const text = page(
      'Get element lists.element.get',
      [SCOPE, WHO],
      [
        '|| **IBLOCK_ID*** [`integer`](../data-types.md) | List id ||',
        '|| **IBLOCK_CODE*** [`string`](../data-types.md) | List code ||',
        '|| **ELEMENT_ID** [`integer`](../data-types.md) | Element id. To retrieve element data, at least one of the parameters must be specified: `ELEMENT_ID` or `ELEMENT_CODE` ||',
        '|| **ELEMENT_CODE** [`string`](../data-types.md) | Element code ||',
      ],
      ['At least one of the parameters must be specified: `IBLOCK_ID` or `IBLOCK_CODE`'],
    )
    const method = parse('api-reference/lists/elements/lists-element-get.md', text)
    // The ELEMENT_ pair is optional in the table: no requirement of the call.
    expect(method.oneOf).toEqual([['IBLOCK_ID', 'IBLOCK_CODE']])
    expect(method.params?.filter((param) => param.required)).toEqual([])
  })

  it('reads a last row the table leaves unclosed (crm.activity.type.add fields)', () => {
    const text = page(
      'Add type crm.activity.type.add',
      [SCOPE, WHO],
      ['|| **fields***', '[`object`](../data-types.md) | Field values'],
    )
    expect(parse('api-reference/crm/type-add.md', text).params).toEqual([
      { name: 'fields', docType: 'object', required: true, summary: 'Field values' },
    ])
  })

  it('marks "Deprecated method" notes and pages under outdated/ deprecated', () => {
    const note = page(
      'Get recent im.search.last.get',
      [SCOPE, WHO],
      [],
      [
        '{% note warning "Deprecated method" %}',
        'Kept for existing integrations. There is no replacement.',
        '{% endnote %}',
      ],
    )
    expect(parse('api-reference/chats/im-search-last-get.md', note).deprecatedBy).toBe('')
    const outdated = page('Register imbot.app.register', [SCOPE, WHO], [])
    expect(parse('api-reference/chats/outdated/imbot-app-register.md', outdated).deprecatedBy).toBe('')
    expect(parse('api-reference/chats/imbot-app-register.md', outdated).deprecatedBy).toBeUndefined()
  })

  it('corrects the titles the errata table names, on their pages only', () => {
    const text = page('Delete Trigger ctrigger.delete', [SCOPE, WHO], [])
    const erratum = NAME_ERRATA.find((entry) => entry.wrong === 'ctrigger.delete')
    expect(erratum?.page).toBe('api-reference/crm/automation/triggers/crm-automation-trigger-delete.md')
    expect(parse(erratum?.page ?? '', text).name).toBe('crm.automation.trigger.delete')
    expect(parse('api-reference/elsewhere.md', text).name).toBe('ctrigger.delete')
    expect(NAME_ERRATA.map((entry) => correctedName(entry.page, entry.wrong))).toEqual([
      'crm.automation.trigger.delete',
      'department.delete',
      'im.recent.pin',
      'humanresources.employee.search',
    ])
  })
})
