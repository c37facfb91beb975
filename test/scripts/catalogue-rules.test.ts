/**
 * The catalogue generator reads the docs' own rules from a page: a method page without a Scope line, either/or
 * parameters, a table whose last row is left unclosed, a table without its header row, fields listed per CRM object
 * type in tabs, fields listed on another page, "Deprecated method" notes and `outdated/` pages, and the errata table
 * for titles that misspell the method; and every method it could not type says why.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { correctedName, NAME_ERRATA } from '../../scripts/catalogue/errata.js'
import { LINKED_FIELDS, withLinkedFields } from '../../scripts/catalogue/linked-fields.js'
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

  it('reads a parameter table without its header row (task.elapseditem.isActionAllowed)', () => {
    const text = [
      '# Check Action Permission task.elapseditem.isActionAllowed',
      '',
      SCOPE,
      '',
      '## Method Parameters',
      '',
      '#| ',
      '|| **TASKID*** ',
      '[`integer`](../../data-types.md) | Task identifier. ||',
      '|| **ACTIONID*** ',
      '[`integer`](../../data-types.md) | Action identifier ||',
      '|#',
    ].join('\n')
    const method = parse('api-reference/tasks/elapsed-item/is-action-allowed.md', text)
    expect(method.params?.map((param) => [param.name, param.docType, param.required])).toEqual([
      ['TASKID', 'integer', true],
      ['ACTIONID', 'integer', true],
    ])
  })

  it("reads the fields of `fields` per CRM object type from the page's tabs (crm.item.add)", () => {
    const tab = (title: string, id: string, rows: string[]) => [
      `- ${title}`,
      '',
      `  CRM object identifier **entityTypeId:** ${id}`,
      '',
      '  #|',
      '  || **Name**',
      '  `type` | **Description** ||',
      ...rows.map((row) => `  ${row}`),
      '  |#',
      '',
    ]
    const text = page(
      'Create a New CRM Item crm.item.add',
      [SCOPE, WHO],
      [
        '|| **entityTypeId*** [`integer`](../data-types.md) | Type ||',
        '|| **fields*** [`object`](../data-types.md) | Fields, listed [below](#parametr-fields) ||',
      ],
      [
        '### Parameter fields',
        '',
        '{% list tabs %}',
        '',
        ...tab('Lead', '`1`', ['|| **honorific** [`crm_status`](../data-types.md) | Honorific ||']),
        ...tab('Deal', '`2`', ['|| **categoryId** [`integer`](../data-types.md) | Pipeline ||']),
        ...tab('SPA', 'can be retrieved via crm.type.list', ['|| **title** [`string`](x) | Name ||']),
        '{% endlist %}',
      ],
    )
    const method = parse('api-reference/crm/universal/crm-item-add.md', text)
    expect(
      method.entityFields?.map((type) => [type.title, type.entityTypeId, type.fields.map((f) => f.name)]),
    ).toEqual([
      ['Lead', 1, ['honorific']],
      ['Deal', 2, ['categoryId']],
      ['SPA', undefined, ['title']],
    ])
  })

  it("adds the fields another page lists after the page's own, which keep their requirement (v3 tasks.task.add)", () => {
    const own = { name: 'title', docType: 'string', required: true }
    const method = parse(
      'api-reference/tasks/tasks-task-add-rest-v3.md',
      page(
        'Add a Task tasks.task.add',
        [SCOPE, WHO],
        ['|| **fields*** [`object`](../data-types.md) | Task fields ||'],
      ),
    )
    const linked = withLinkedFields(
      { ...method, params: [{ name: 'fields', docType: 'object', required: true, nested: [own] }] },
      'fields',
      [
        { name: 'title', docType: 'string', required: false },
        { name: 'groupId', docType: 'integer', required: true },
        { name: 'creator', docType: 'object', required: false },
      ].filter(LINKED_FIELDS[0]?.sent ?? (() => false)),
    )
    expect(linked.params?.[0]?.nested?.map((field) => [field.name, field.required])).toEqual([
      ['title', true],
      ['groupId', false],
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

describe('the methods the catalogue could not type', () => {
  it('each says why where its parameters are declared: its page has no parameter table, named', () => {
    const source = readFileSync(
      new URL('../../src/catalogue/method-types.generated.ts', import.meta.url),
      'utf8',
    )
    const untyped = [...source.matchAll(/^ {2}\/\*\* (.*) \*\/\n {2}'([\w.]+)': Obj$/gm)]
    expect(untyped.map((entry) => entry[2])).toContain('crm.invoice.status.list')
    expect(untyped.length).toBe(13)
    for (const [, doc] of untyped)
      expect(doc).toMatch(
        /Parameters not typed \(any key is taken\): its page, [\w/-]+, has no parameter table\./,
      )
  })
})
