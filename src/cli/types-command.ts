import { writeFile } from 'node:fs/promises'
import type { PortalOAuth } from '../portal-oauth.js'
import { parseCommandArgs } from './args.js'
import { type Command, flagNames, printHelp } from './command.js'
import { CREDENTIALS_HELP } from './credentials.js'
import { CommandFailure, ExitCode, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import { type OpenApiMethod, openApiMethods } from './openapi-types.js'
import { openPortal, PORTAL_FLAG_OPTIONS, PORTAL_FLAGS_HELP, portalFlags } from './portal-source.js'
import { type EntityFields, type FieldDescription, portalTypesModule, userFields } from './portal-types.js'
import { EXIT_CODES_HELP } from './run.js'

const HELP = `Usage: portal-oauth types (--pair FILE | --store URL --member ID) [--out FILE] [flags]

Generates a TypeScript module of one portal's own types: the user fields (UF_CRM_*) of its leads, deals, contacts
and companies (crm.*.fields, and crm.item.fields with their camelCase names), a narrowed v2 catalogue in which
crm.*.add and crm.*.update check those fields, and the REST 3.0 methods of its OpenAPI document
(rest.documentation.openapi) that the catalogue lacks. Use it as withPortalTypes(new PortalOAuth(pair, secret)).
A source the portal refuses (a missing scope) is left out, with a line on stderr.

Flags:
${PORTAL_FLAGS_HELP}
  --out FILE               write the module to FILE (default: stdout)
  --entity-type N          also the crm.item.fields of entity type N (a smart process); repeatable
${CREDENTIALS_HELP}
  -h, --help               this help

${EXIT_CODES_HELP}`

const FLAGS = {
  ...PORTAL_FLAG_OPTIONS,
  out: { type: 'string' },
  'entity-type': { type: 'string', multiple: true },
} as const

/** The CRM entities whose fields are read: name, v2 fields method, entity type id. */
const ENTITIES = [
  { name: 'Lead', entity: 'lead', entityTypeId: 1 },
  { name: 'Deal', entity: 'deal', entityTypeId: 2 },
  { name: 'Contact', entity: 'contact', entityTypeId: 3 },
  { name: 'Company', entity: 'company', entityTypeId: 4 },
] as const

type Description = Record<string, FieldDescription>

/** A fields description, or `undefined` (with a line on stderr) when the portal refused it. */
async function read(
  portal: PortalOAuth,
  method: string,
  params: Record<string, unknown>,
  io: CliIo,
): Promise<Description | undefined> {
  const result = await portal.actions.v2.call.make({ method, params, unchecked: true, signal: io.signal })
  if (!result.isSuccess) {
    io.stderr.write(
      `portal-oauth types: ${method} ${JSON.stringify(params)}: ${result.getErrorMessages().join('; ')}; left out\n`,
    )
    return undefined
  }
  const answer = (result.getData() as { result?: unknown } | undefined)?.result
  const description =
    method === 'crm.item.fields' ? (answer as { fields?: unknown } | undefined)?.fields : answer
  if (typeof description !== 'object' || description === null || Array.isArray(description)) {
    io.stderr.write(`portal-oauth types: ${method}: the answer holds no field description; left out\n`)
    return undefined
  }
  return description as Description
}

async function readEntities(
  portal: PortalOAuth,
  extra: readonly number[],
  io: CliIo,
): Promise<EntityFields[]> {
  const entities: EntityFields[] = []
  for (const { name, entity, entityTypeId } of ENTITIES) {
    const method = `crm.${entity}.fields`
    const description = await read(portal, method, {}, io)
    if (description)
      entities.push({
        name,
        source: method,
        methods: [`crm.${entity}.add`, `crm.${entity}.update`],
        fields: userFields(description),
      })
    const items = await read(portal, 'crm.item.fields', { entityTypeId }, io)
    if (items)
      entities.push({
        name: `${name}Item`,
        source: `crm.item.fields (entityTypeId ${entityTypeId})`,
        methods: [],
        fields: userFields(items),
      })
  }
  for (const entityTypeId of extra) {
    const items = await read(portal, 'crm.item.fields', { entityTypeId }, io)
    if (items)
      entities.push({
        name: `Item${entityTypeId}`,
        source: `crm.item.fields (entityTypeId ${entityTypeId})`,
        methods: [],
        fields: userFields(items),
      })
  }
  return entities
}

/** The REST 3.0 methods of the portal's OpenAPI document that the catalogue lacks; none when it is refused. */
async function readV3Methods(portal: PortalOAuth, io: CliIo): Promise<OpenApiMethod[]> {
  const method = 'rest.documentation.openapi'
  const result = await portal.actions.v3.call.make({ method, params: {}, unchecked: true, signal: io.signal })
  if (!result.isSuccess) {
    io.stderr.write(`portal-oauth types: ${method}: ${result.getErrorMessages().join('; ')}; left out\n`)
    return []
  }
  // The unified answer holds the document in result; a document sent bare is taken too.
  const payload = result.getData() as Record<string, unknown> | undefined
  const document = payload && 'openapi' in payload ? payload : payload?.result
  if (typeof document !== 'object' || document === null || !('paths' in document)) {
    io.stderr.write(`portal-oauth types: ${method}: the answer holds no OpenAPI document; left out\n`)
    return []
  }
  const { V3_METHODS } = await import('../catalogue/methods.generated.js')
  const documented = new Set(Object.keys(V3_METHODS).map((name) => name.toLowerCase()))
  return openApiMethods(document as Record<string, unknown>).filter(
    (entry) => !documented.has(entry.method.toLowerCase()),
  )
}

async function run(args: string[], io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs('types', args, FLAGS, 0)
  if (parsed === 'help') return printHelp({ help: HELP }, io)
  const { values } = parsed
  const extra = (values['entity-type'] ?? []).map((value) => {
    if (!/^\d+$/.test(value))
      throw new UsageError(`types: --entity-type must be an entity type id, got '${value}'`)
    return Number(value)
  })
  const { portal, signal, explain, close } = await openPortal('types', portalFlags(values), io)
  // The calls stop at SIGINT or SIGTERM, and at once when the portal cannot be reached.
  const callIo: CliIo = { ...io, signal }
  let entities: EntityFields[]
  let v3Methods: OpenApiMethod[]
  let origin: string
  try {
    entities = await readEntities(portal, extra, callIo)
    v3Methods = await readV3Methods(portal, callIo)
    origin = portal.getTargetOrigin()
  } catch (error) {
    throw explain(error)
  } finally {
    await close()
  }
  if (entities.length === 0 && v3Methods.length === 0)
    throw new CommandFailure('the portal answered none of the field descriptions, nor its OpenAPI document')
  const module = portalTypesModule(new URL(origin).host, entities, v3Methods)
  if (values.out === undefined) io.stdout.write(module)
  else {
    try {
      await writeFile(values.out, module)
    } catch (error) {
      throw new CommandFailure(
        `--out ${values.out}: cannot write it (${(error as NodeJS.ErrnoException).code})`,
      )
    }
    const count = entities.reduce((sum, entity) => sum + Object.keys(entity.fields).length, 0)
    io.stderr.write(
      `portal-oauth types: ${count} user fields of ${entities.length} sources written to ${values.out}\n`,
    )
  }
  return ExitCode.Ok
}

/** `portal-oauth types`: a module of one portal's own types (its CRM user fields) narrowing the catalogue. */
export const typesCommand: Command = {
  name: 'types',
  summary: "generate one portal's types: its CRM user fields, narrowing the catalogue",
  help: HELP,
  flags: flagNames(FLAGS),
  run,
}
