import { type DocAnswers, loadAnswers } from './answers.js'
import { EmulatorRestError } from './errors.js'
import type { MethodRegistry } from './methods.js'

/** One field of a CRM entity as the emulated portal describes it. */
interface FieldSpec {
  /** The UPPER_CASE name (`UF_CRM_BUDGET`). */
  upper: string
  /** The field type (`string`, `double`, `enumeration`, `boolean`, `datetime`, `integer`, `url`, `user`, ...). */
  type: string
  /** Its label. */
  label: string
  multiple?: boolean
  required?: boolean
  readOnly?: boolean
  /** An `enumeration`'s items. */
  items?: Array<{ ID: string; VALUE: string }>
}

type Row = Record<string, unknown>

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The standard fields of an entity whose `fields` the docs seed none (a few: more than only user fields). */
const STANDARD: FieldSpec[] = [
  { upper: 'ID', type: 'integer', label: 'ID', readOnly: true },
  { upper: 'TITLE', type: 'string', label: 'Name' },
  { upper: 'ASSIGNED_BY_ID', type: 'user', label: 'Responsible' },
  { upper: 'DATE_CREATE', type: 'datetime', label: 'Created', readOnly: true },
]

/**
 * The emulated portal's own user fields, per CRM entity: what `crm.*.fields` and `crm.item.fields` describe, and
 * what `portal-oauth types` turns into types.
 */
const USER_FIELDS: Record<'lead' | 'deal' | 'contact' | 'company', FieldSpec[]> = {
  lead: [{ upper: 'UF_CRM_SOURCE_NOTE', type: 'string', label: 'Source note' }],
  deal: [
    { upper: 'UF_CRM_BUDGET', type: 'double', label: 'Budget', required: true },
    {
      upper: 'UF_CRM_REGION',
      type: 'enumeration',
      label: 'Region',
      items: [
        { ID: '41', VALUE: 'North' },
        { ID: '42', VALUE: 'South' },
        { ID: '43', VALUE: 'West' },
      ],
    },
    { upper: 'UF_CRM_TAGS', type: 'string', label: 'Tags', multiple: true },
    { upper: 'UF_CRM_VIP', type: 'boolean', label: 'VIP' },
    { upper: 'UF_CRM_DUE', type: 'datetime', label: 'Due' },
  ],
  contact: [
    { upper: 'UF_CRM_BIRTH_CITY', type: 'string', label: 'Birth city' },
    {
      upper: 'UF_CRM_LOYALTY',
      type: 'enumeration',
      label: 'Loyalty',
      items: [
        { ID: '51', VALUE: 'Bronze' },
        { ID: '52', VALUE: 'Silver' },
        { ID: '53', VALUE: 'Gold' },
      ],
    },
  ],
  company: [
    { upper: 'UF_CRM_EMPLOYEES', type: 'integer', label: 'Employees' },
    { upper: 'UF_CRM_SITE', type: 'url', label: 'Site' },
  ],
}

/** The CRM entity type ids of the four entities (`crm.item.*` `entityTypeId`). */
const ENTITY_TYPE_IDS: Record<number, keyof typeof USER_FIELDS> = {
  1: 'lead',
  2: 'deal',
  3: 'contact',
  4: 'company',
}

/**
 * The camelCase name `crm.item.*` uses (the docs' rule: underscores go, except between two numbers):
 * `UF_CRM_BUDGET` → `ufCrmBudget`, `ASSIGNED_BY_ID` → `assignedById`.
 */
export function camelName(upper: string): string {
  const parts = upper.toLowerCase().split('_')
  let name = parts[0] ?? ''
  for (let index = 1; index < parts.length; index++) {
    const part = parts[index] ?? ''
    const betweenNumbers = /\d$/.test(name) && /^\d/.test(part)
    name += betweenNumbers ? `_${part}` : part.charAt(0).toUpperCase() + part.slice(1)
  }
  return name
}

function describe(field: FieldSpec, naming: 'v2' | 'item'): Record<string, unknown> {
  const dynamic = field.upper.startsWith('UF_')
  return {
    type: field.type,
    isRequired: field.required === true,
    isReadOnly: field.readOnly === true,
    isImmutable: false,
    isMultiple: field.multiple === true,
    isDynamic: dynamic,
    ...(field.items && { items: field.items }),
    // v2 titles a user field by its name and puts the label in listLabel/formLabel/filterLabel; crm.item by its label.
    title: dynamic && naming === 'v2' ? field.upper : field.label,
    ...(dynamic && { listLabel: field.label, formLabel: field.label, filterLabel: field.label }),
    ...(naming === 'item' && { upperName: field.upper }),
  }
}

/**
 * The standard fields as the docs' example answer of `crm.<entity>.fields` (`crm.item.fields`: its `fields`)
 * describes them, every one the page shows; {@link STANDARD} where the docs seed none.
 */
function standardFields(answers: DocAnswers, entity: keyof typeof USER_FIELDS, naming: 'v2' | 'item'): Row {
  const example = answers.examples.v2.get(naming === 'v2' ? `crm.${entity}.fields` : 'crm.item.fields')
  const fields = naming === 'item' && isRow(example) ? example.fields : example
  if (isRow(fields)) return fields
  return Object.fromEntries(
    STANDARD.map((field) => [
      naming === 'v2' ? field.upper : camelName(field.upper),
      describe(field, naming),
    ]),
  )
}

function description(
  answers: DocAnswers,
  entity: keyof typeof USER_FIELDS,
  naming: 'v2' | 'item',
): Record<string, unknown> {
  return {
    ...standardFields(answers, entity, naming),
    ...Object.fromEntries(
      USER_FIELDS[entity].map((field) => [
        naming === 'v2' ? field.upper : camelName(field.upper),
        describe(field, naming),
      ]),
    ),
  }
}

/**
 * Registers `crm.lead.fields`, `crm.deal.fields`, `crm.contact.fields`, `crm.company.fields` (v2, UPPER_CASE names)
 * and `crm.item.fields` (`entityTypeId` 1 to 4, camelCase names with `upperName`): the standard fields the docs'
 * example answers describe, and the emulated portal's user fields.
 */
export function registerFieldMethods(registry: MethodRegistry): void {
  for (const entity of Object.keys(USER_FIELDS) as Array<keyof typeof USER_FIELDS>) {
    registry.define(`crm.${entity}.fields`, async () => description(await loadAnswers(), entity, 'v2'), {
      versions: ['v2'],
    })
  }
  registry.define(
    'crm.item.fields',
    async (params) => {
      const entity = ENTITY_TYPE_IDS[Number(params.entityTypeId)]
      if (!entity) throw new EmulatorRestError('ERROR_NOT_FOUND', 'Smart process not found', 400)
      return { fields: description(await loadAnswers(), entity, 'item') }
    },
    { versions: ['v2'] },
  )
}
