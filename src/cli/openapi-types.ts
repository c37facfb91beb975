/** A method a portal's OpenAPI document describes, with the TypeScript type of its parameters. */
export interface OpenApiMethod {
  /** The method name (the path's last segment: `/landing.aisite.status` → `landing.aisite.status`). */
  method: string
  /** The operation's summary, for the doc comment. */
  summary: string
  /** The type of its JSON body, `Record<string, unknown>` where the document says nothing usable. */
  params: string
}

type Schema = Record<string, unknown>

const OPEN_OBJECT = 'Record<string, unknown>'
/** How deep `$ref`s are followed before a schema is typed `unknown` (a cycle ends there). */
const MAX_DEPTH = 8

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A property name, quoted when it is no identifier. */
function property(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name.replace(/[\\']/g, (char) => `\\${char}`)}'`
}

/** A JSON value as a TypeScript literal type (strings single-quoted). */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, (char) => `\\${char}`)}'`
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  return 'unknown'
}

/** The schema a local `$ref` (`#/components/schemas/Name`) points to. */
function resolve(document: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = document
  for (const part of ref.slice(2).split('/')) {
    if (!isSchema(node)) return undefined
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return isSchema(node) ? node : undefined
}

/** The TypeScript type of a JSON Schema (the OpenAPI 3.0 subset a portal's document uses). */
export function schemaType(document: Schema, schema: unknown, depth = 0): string {
  if (!isSchema(schema) || depth > MAX_DEPTH) return 'unknown'
  if (typeof schema.$ref === 'string') return schemaType(document, resolve(document, schema.$ref), depth + 1)
  const nullable = schema.nullable === true ? ' | null' : ''
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return `${schema.enum.map(literal).join(' | ')}${nullable}`
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key]
    if (Array.isArray(options) && options.length > 0)
      return `${options.map((option) => schemaType(document, option, depth + 1)).join(' | ')}${nullable}`
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0)
    return `${schema.allOf.map((part) => `(${schemaType(document, part, depth + 1)})`).join(' & ')}${nullable}`
  switch (schema.type) {
    case 'string':
      return `string${nullable}`
    case 'integer':
    case 'number':
      return `number${nullable}`
    case 'boolean':
      return `boolean${nullable}`
    case 'array': {
      const item = schemaType(document, schema.items, depth + 1)
      return `readonly ${/[ |&]/.test(item) ? `(${item})` : item}[]${nullable}`
    }
    case 'object':
    case undefined:
      return `${objectType(document, schema, depth)}${nullable}`
    default:
      return 'unknown'
  }
}

function objectType(document: Schema, schema: Schema, depth: number): string {
  const properties = isSchema(schema.properties) ? schema.properties : undefined
  if (!properties) return schema.type === 'object' ? OPEN_OBJECT : 'unknown'
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
  const members = Object.entries(properties).map(
    ([name, value]) =>
      `${property(name)}${required.has(name) ? '' : '?'}: ${schemaType(document, value, depth + 1)}`,
  )
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
    members.push(`[k: string]: unknown`)
  return `{ ${members.join('; ')} }`
}

/** Every method of a portal's OpenAPI document, with the type of its JSON body. */
export function openApiMethods(document: Schema): OpenApiMethod[] {
  const paths = isSchema(document.paths) ? document.paths : {}
  const methods: OpenApiMethod[] = []
  for (const [path, item] of Object.entries(paths)) {
    const method = path.split('/').filter(Boolean).at(-1)
    if (!method || !/^[\w.]+$/.test(method) || !isSchema(item)) continue
    const operation = [item.post, item.get].find(isSchema)
    const content = isSchema(operation?.requestBody) ? operation.requestBody.content : undefined
    const json = isSchema(content) ? content['application/json'] : undefined
    const schema = isSchema(json) ? json.schema : undefined
    const typed = schema === undefined ? OPEN_OBJECT : schemaType(document, schema)
    methods.push({
      method,
      summary: typeof operation?.summary === 'string' ? operation.summary : '',
      params: typed === 'unknown' ? OPEN_OBJECT : typed,
    })
  }
  return methods.sort((a, b) => a.method.localeCompare(b.method))
}
