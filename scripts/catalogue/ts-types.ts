import type { DocParam } from './doc-model.js'

/** Doc types that are text. */
const TEXT = new Set([
  'string',
  'text',
  'char',
  'date',
  'datetime',
  'time',
  'timestamp_string',
  'html',
  'url',
  'email',
])
/** Doc types that are numbers. */
const NUMBER = new Set(['integer', 'int', 'double', 'float', 'number', 'timestamp', 'decimal'])
/** Doc types that say nothing about the value. */
const ANY = new Set(['any', 'mixed', 'file', 'diskfile', 'attached_diskfile', 'enum', ''])

/**
 * The TypeScript type of a documented type, written with the short names of `src/catalogue/doc-types.ts`
 * (`Flag`: a documented boolean, which the portal takes as `Y`/`N`, `0`/`1` or `true`/`false`; `Id`: a reference to
 * another object or directory entry, sent as a number or a string; `NumericId`: an integer id, as a number or a
 * numeric string; `Obj`: an object of any fields).
 */
export function tsType(param: DocParam): string {
  // A union the docs write as `string | object`.
  if (param.docType.includes('|')) {
    const members = param.docType.split('|').map((member) => tsType({ ...param, docType: member.trim() }))
    return members.includes('unknown') ? 'unknown' : [...new Set(members)].join(' | ')
  }
  const array = /^(.+)\[\]$/.exec(param.docType)
  if (array) {
    const item = tsType({ ...param, docType: array[1] ?? '' })
    // Read-only: parameters are only read, and a caller's `as const` arrays are read-only.
    return /^[\w.]+$/.test(item) ? `readonly ${item}[]` : `ReadonlyArray<${item}>`
  }
  if (param.nested && param.nested.length > 0) {
    const fields = objectType(param.nested, true)
    return /^array$/i.test(param.docType) ? `ReadonlyArray<${fields}>` : fields
  }
  const docType = param.docType.toLowerCase()
  // A filter documented as a string (user.get, user.search) is an object of field conditions.
  if (/^filter$/i.test(param.name) && docType === 'string') return 'Obj'
  if (param.flagValues) return param.flagValues.map((value) => `'${value}'`).join(' | ')
  if (TEXT.has(docType)) return 'string'
  // An integer id is also taken as a numeric string: results carry v2 ids as strings ("ID": "410").
  if (NUMBER.has(docType))
    return /^integer$|^int$/.test(docType) && isIdName(param.name) ? 'NumericId' : 'number'
  if (docType === 'boolean' || docType === 'bool') return 'Flag'
  if (docType === 'object' || docType === 'lang_map') return 'Obj'
  if (docType === 'array' || docType === 'list') return 'readonly unknown[]'
  if (ANY.has(docType)) return 'unknown'
  // Everything else names an object or directory (`user`, `crm_status`, `catalog_product.id`, `LayoutDto`).
  return /dto$/.test(docType) ? 'Obj' : 'Id'
}

/** Whether a parameter names an id (`id`, `ID`, `entityTypeId`, `OWNER_ID`, `IBLOCK_ID`). */
function isIdName(name: string): boolean {
  return /^id$|Id$|(^|_)ID$/i.test(name) && !/^(valid|paid|uuid|guid)$/i.test(name)
}

/** Whether `name` can be written as a key as it is (else it is quoted). */
function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(name)
}

/** A parameter name that describes a family (`UF_CRM_...`, `PROPERTY_PropertyId`, `TITLE (LANG)`), not one key. */
export function isPattern(name: string): boolean {
  return /\.\.\.|…|^UF_|_xxx|PropertyId$/.test(name) || !/^[A-Za-z_$][\w$.\-[\]:]*$/.test(name)
}

/**
 * An object type of the parameters: documented keys typed, required ones without `?`. `open`: other keys allowed
 * too (nested field objects take custom fields), as is a level whose docs name a family of keys or say it takes
 * other keys.
 */
export function objectType(params: readonly DocParam[], open: boolean): string {
  const seen = new Set<string>()
  const members: string[] = []
  let family = false
  for (const param of params) {
    if (param.otherKeys) family = true
    if (isPattern(param.name)) {
      family = true
      continue
    }
    if (seen.has(param.name)) continue
    seen.add(param.name)
    const key = isIdentifier(param.name) ? param.name : JSON.stringify(param.name)
    // On a line of its own: a doc comment after `{` or `;` on the same line attaches to nothing.
    const doc = param.summary === undefined ? '' : `\n    /** ${param.summary} */\n    `
    members.push(`${doc}${key}${param.required ? '' : '?'}: ${tsType(param)}`)
  }
  if (open || family) members.push('[k: string]: unknown')
  return `{ ${members.join('; ')} }`.replace(/ +\n/g, '\n')
}
