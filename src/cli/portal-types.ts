import type { OpenApiMethod } from './openapi-types.js'

/** A field as `crm.*.fields` / `crm.item.fields` describe it (the members the types are made of). */
export interface FieldDescription {
  type?: unknown
  isMultiple?: unknown
  isRequired?: unknown
  isDynamic?: unknown
  title?: unknown
  listLabel?: unknown
  upperName?: unknown
  items?: unknown
}

/** The user fields of one CRM entity, read from the portal. */
export interface EntityFields {
  /** `Deal`, `Contact`, ... (the types' names start with it). */
  name: string
  /** The v2 method it came from (`crm.deal.fields`), or `crm.item.fields` with `entityTypeId`. */
  source: string
  /** The v2 methods whose `fields` parameter takes them (`crm.deal.add`, `crm.deal.update`); none for crm.item. */
  methods: string[]
  /** Field name to its description, user fields only. */
  fields: Record<string, FieldDescription>
}

/** Only the user fields of a description (`isDynamic`, or a `UF_` name). */
export function userFields(description: Record<string, FieldDescription>): Record<string, FieldDescription> {
  return Object.fromEntries(
    Object.entries(description).filter(
      ([name, field]) =>
        field.isDynamic === true || /^UF_/.test(name) || /^UF_/.test(String(field.upperName ?? '')),
    ),
  )
}

/** A TypeScript string literal, single-quoted. */
function literal(text: string): string {
  return `'${text.replace(/[\\']/g, (char) => `\\${char}`).replace(/\n/g, '\\n')}'`
}

/** A property name, quoted when it is no identifier. */
function property(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : literal(name)
}

/** Text for a doc comment: no comment end, one line. */
function comment(text: string): string {
  return text.replace(/\*\//g, '* /').replace(/\s+/g, ' ').trim()
}

/** The enumeration's item ids, as the portal takes them: the id as a number or a string. */
function enumerationType(items: unknown): string | undefined {
  if (!Array.isArray(items)) return undefined
  const ids = items
    .map((item) =>
      typeof item === 'object' && item !== null ? String((item as { ID?: unknown }).ID ?? '') : '',
    )
    .filter((id) => /^\d+$/.test(id))
  if (ids.length === 0) return undefined
  return [...ids.map((id) => id), ...ids.map(literal)].join(' | ')
}

/** The TypeScript type a value of the field takes in `fields` of an add or update. */
export function fieldType(field: FieldDescription): string {
  const type = String(field.type ?? '')
  let single: string
  switch (type) {
    case 'string':
    case 'url':
    case 'address':
    case 'money':
    case 'date':
    case 'datetime':
    case 'char':
      single = 'string'
      break
    case 'integer':
    case 'double':
      single = 'number'
      break
    case 'boolean':
      single = 'Flag'
      break
    case 'enumeration':
      single = enumerationType(field.items) ?? 'Id'
      break
    case 'user':
    case 'employee':
    case 'crm_status':
    case 'iblock_element':
    case 'iblock_section':
      single = 'Id'
      break
    default:
      single = 'unknown'
  }
  if (field.isMultiple !== true) return single
  return single.includes('|') ? `readonly (${single})[]` : `readonly ${single}[]`
}

function describeField(field: FieldDescription): string {
  const label =
    typeof field.listLabel === 'string' && field.listLabel !== ''
      ? field.listLabel
      : String(field.title ?? '')
  const facts = [String(field.type ?? 'unknown type')]
  if (field.isMultiple === true) facts.push('multiple')
  if (field.isRequired === true) facts.push('required')
  if (String(field.type) === 'enumeration' && Array.isArray(field.items)) {
    const items = (field.items as Array<{ ID?: unknown; VALUE?: unknown }>).map(
      (item) => `${item.ID} ${item.VALUE}`,
    )
    facts.push(items.join(', '))
  }
  return comment(`${label} (${facts.join('; ')})`)
}

function fieldsInterface(name: string, doc: string, fields: Record<string, FieldDescription>): string {
  const members = Object.entries(fields).map(
    ([field, description]) =>
      `  /** ${describeField(description)} */\n  ${property(field)}?: ${fieldType(description)}`,
  )
  return `/** ${comment(doc)} */\nexport interface ${name} {\n${members.join('\n')}\n}\n`
}

/** The interface of the REST 3.0 methods the portal describes and the catalogue lacks. */
function v3MethodsInterface(methods: readonly OpenApiMethod[]): string {
  const members = methods.map(
    (method) =>
      `${method.summary === '' ? '' : `  /** ${comment(method.summary)} */\n`}  ${literal(method.method)}: ${method.params}`,
  )
  return `/** The REST 3.0 methods of this portal's OpenAPI document (rest.documentation.openapi) that the catalogue lacks. */
export interface PortalV3Methods {
${members.join('\n')}
}
`
}

/**
 * The generated module: the user fields' interfaces, the narrowed v2 catalogue, the v3 catalogue with the portal's
 * own methods (`v3Methods`), and `withPortalTypes`.
 */
export function portalTypesModule(
  portal: string,
  entities: readonly EntityFields[],
  v3Methods: readonly OpenApiMethod[],
): string {
  const interfaces = entities.map((entity) =>
    fieldsInterface(
      `${entity.name}UserFields`,
      `The user fields of ${entity.source}${entity.methods.length > 0 ? `, as ${entity.methods.join(' and ')} take them in fields` : ''}.`,
      entity.fields,
    ),
  )
  const narrowed = entities.flatMap((entity) =>
    entity.methods.map(
      (method) =>
        `  ${literal(method)}: WithFields<V2MethodParams[${literal(method)}], ${entity.name}UserFields>`,
    ),
  )
  const omitted = entities.flatMap((entity) => entity.methods).map(literal)
  const sources = [
    ...entities.map((entity) => entity.source),
    ...(v3Methods.length > 0 ? ['rest.documentation.openapi'] : []),
  ].join(', ')
  return `/*
 * The types of one portal (${comment(portal)}), from ${comment(sources)}.
 * Generated by \`portal-oauth types\`. Do not edit: run it again when the portal's fields change.
 */
import type {
  CallAction,
  PortalOAuth,
  V2BatchRef,
  V2MethodParams,
  V2MethodResults,
  V3Actions,
  V3BatchRef,
  V3MethodParams,
  V3MethodResults,
  VersionActions,
} from 'portal-oauth'

/** What a boolean user field takes. */
type Flag = boolean | 'Y' | 'N' | 0 | 1

/** An id of another object (a user, an item). */
type Id = string | number

${interfaces.join('\n')}
/** \`P\` with the user fields \`F\` typed in its \`fields\`. */
type WithFields<P, F> = { [K in keyof P]: K extends 'fields' ? P[K] & F : P[K] }

/** The v2 catalogue with this portal's user fields typed in the \`fields\` of the methods that take them. */
export interface PortalV2Params extends Omit<V2MethodParams, ${omitted.length > 0 ? omitted.join(' | ') : 'never'}> {
${narrowed.join('\n')}
}

/** The v2 entry points, checked against {@link PortalV2Params}. */
export type PortalV2Actions = VersionActions<
  PortalV2Params,
  V2BatchRef,
  CallAction<PortalV2Params, never, V2MethodResults>,
  V2MethodResults
>

${v3MethodsInterface(v3Methods)}
/** The v3 catalogue and this portal's own REST 3.0 methods. */
export interface PortalV3Params extends V3MethodParams, PortalV3Methods {}

/** The v3 entry points, checked against {@link PortalV3Params}. */
export type PortalV3Actions = Omit<V3Actions, 'call' | 'methods' | 'callList' | 'fetchList' | 'batch' | 'batchByChunk'> &
  VersionActions<
    PortalV3Params,
    V3BatchRef,
    CallAction<PortalV3Params, never, V3MethodResults>,
    V3MethodResults,
    'items'
  >

/** A \`PortalOAuth\` whose calls know this portal's user fields and REST 3.0 methods. */
export type PortalTypes = Omit<PortalOAuth, 'actions'> & {
  readonly actions: { readonly v2: PortalV2Actions; readonly v3: PortalV3Actions }
}

/** The same client, typed with this portal's fields: \`const portal = withPortalTypes(new PortalOAuth(pair, secret))\`. */
export function withPortalTypes(portal: PortalOAuth): PortalTypes {
  return portal as unknown as PortalTypes
}
`
}
