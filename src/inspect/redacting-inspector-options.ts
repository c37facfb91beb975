import { SdkError } from '../errors/sdk-error.js'
import type { InspectedEvent } from '../types/inspect-option.js'

// XState's `MachineContext` and `AnyEventObject`, described here so that the main entry's declarations do not load
// XState's (see ../types/xstate-types.ts).
/** A machine's context, as the inspector's `sanitizeContext` gets it. */
export type InspectedContext = Record<string, unknown>
/** An event with its fields, as the inspector's `sanitizeEvent` gets it. */
export type InspectedEventObject = InspectedEvent & { readonly [field: string]: unknown }

/**
 * The redaction options of a Stately inspector (`createWebSocketInspector(options)`, `createBrowserInspector(options)`,
 * `createInspector(adapter, options)` from `@statelyai/inspect`), typed without depending on that package.
 */
export interface InspectorRedactionOptions {
  /** Keeps the machines' own context fields; every other field becomes `'[redacted]'`. */
  sanitizeContext: (context: InspectedContext) => InspectedContext
  /** Keeps `type` and the machines' own event fields; outputs and errors are reduced, the rest redacted. */
  sanitizeEvent: (event: InspectedEventObject) => InspectedEventObject
  /** Applies the same to whole inspection events, including the snapshots of invoked actors. */
  serialize: <
    E extends {
      /** The event's name. */
      type: string
    },
  >(
    event: E,
  ) => E
}

/** Which fields may reach the inspector; everything else is replaced by `'[redacted]'` or dropped. */
export interface RedactionAllowList {
  /** Context fields shown as they are. Default: the fields of the access-token and admin-flag machines. */
  contextFields?: readonly string[]
  /** Event fields shown as they are, besides `type`. Default: `now` and `generation`. */
  eventFields?: readonly string[]
}

/** Context fields of `accessTokenMachine` and `adminFlagMachine`; none of them is a secret. */
const MACHINE_CONTEXT_FIELDS = [
  'expires',
  'generation',
  'refreshOrigin',
  'background',
  'refreshCount',
  'failureCount',
  'attempt',
  'retryDelayMs',
  'closing',
  'settings',
  'isAdmin',
]

/** Fields of the machines' events besides `type`. */
const MACHINE_EVENT_FIELDS = ['now', 'generation']

/** What is shown of an actor's output: flags, numbers, and the new pair's `expires` and `generation`. */
const OUTPUT_FIELDS = ['expires', 'generation']

const REDACTED = '[redacted]'

type Json = Record<string, unknown>

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function pick(value: Json, fields: ReadonlySet<string>): Json {
  const result: Json = {}
  for (const [key, field] of Object.entries(value)) {
    result[key] = FAILURE_CONTEXT_FIELDS.has(key) ? redactError(field) : fields.has(key) ? field : REDACTED
  }
  return result
}

function redactOutput(output: unknown): unknown {
  if (output === undefined || output === null) return output
  if (typeof output === 'boolean' || typeof output === 'number') return output
  if (isRecord(output)) {
    const result: Json = {}
    for (const field of OUTPUT_FIELDS) if (field in output) result[field] = output[field]
    return result
  }
  return REDACTED
}

/** Context fields that hold how a refresh or its callback failed: shown as {@link redactError} shows errors. */
const FAILURE_CONTEXT_FIELDS: ReadonlySet<string> = new Set(['lastFailure', 'callbackFailure'])

/**
 * An error as the inspector sees it: a client's own error by its name, code and HTTP status, never its message (it
 * may quote anything); another's as `thrown value`. A refresh failure of the token machine (`{ kind, error, timedOut? }`) keeps its kind and flag around its error.
 */
function redactError(error: unknown): unknown {
  if (error === undefined || error === null) return error
  if (isRecord(error) && typeof error.kind === 'string' && 'error' in error) {
    const failure: Json = { kind: error.kind, error: redactError(error.error) }
    if (error.timedOut === true) failure.timedOut = true
    return failure
  }
  if (
    isRecord(error) &&
    'error' in error &&
    Object.keys(error).every((key) => key === 'error' || key === 'timedOut')
  ) {
    return error.timedOut === true
      ? { error: redactError(error.error), timedOut: true }
      : { error: redactError(error.error) }
  }
  // Another's error is the thrower's own: its name or code may be a getter that quotes a token, and nothing here
  // knows the instance's secrets. Only the client's own errors are shown, by their own data fields.
  if (isShownError(error)) return { ...error }
  if (!isOwnError(error)) return { name: 'thrown value' }
  const result: Json = { name: dataField(error, 'name') ?? 'Error' }
  const code = dataField(error, 'code')
  if (typeof code === 'string') result.code = code
  const status = dataField(error, 'status')
  if (typeof status === 'number') result.status = status
  return result
}

/** Keys of an error as {@link redactError} shows it. */
const SHOWN_ERROR_KEYS: ReadonlySet<string> = new Set(['name', 'code', 'status'])

/**
 * Whether `error` is what {@link redactError} made before (the inspectors sanitize an event, then serialize it): a
 * plain object of data fields `name`, `code` and `status` only. The machines' errors are always `Error` instances.
 */
function isShownError(error: unknown): error is Json {
  try {
    if (!isRecord(error) || Reflect.getPrototypeOf(error) !== Object.prototype) return false
    return Reflect.ownKeys(error).every((key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(error, key)
      return (
        typeof key === 'string' &&
        SHOWN_ERROR_KEYS.has(key) &&
        descriptor !== undefined &&
        'value' in descriptor
      )
    })
  } catch {
    return false
  }
}

/** Whether `error` is one of the client's own (`SdkError` and its subclasses); a Proxy's trap may throw. */
function isOwnError(error: unknown): error is SdkError {
  try {
    return error instanceof SdkError
  } catch {
    return false
  }
}

/** A data field of `error` or of a prototype, never a getter's answer. */
function dataField(error: object, key: string): unknown {
  try {
    for (let layer: object | null = error; layer; layer = Reflect.getPrototypeOf(layer)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(layer, key)
      if (descriptor) return 'value' in descriptor ? descriptor.value : undefined
    }
  } catch {
    // A Proxy in the chain: nothing is shown.
  }
  return undefined
}

/**
 * Inspector options that let states, event types and the machines' own context through, and nothing else: unknown
 * context and event fields become `'[redacted]'`, actor outputs keep only flags, numbers, `expires` and `generation`,
 * errors keep their name, code and status. The machines hold no secret by design; this keeps it so for anything an
 * application adds, for errors thrown by a custom refresh, and for the snapshots of invoked actors.
 */
export function redactingInspectorOptions(allow: RedactionAllowList = {}): InspectorRedactionOptions {
  const contextFields = new Set([...MACHINE_CONTEXT_FIELDS, ...(allow.contextFields ?? [])])
  const eventFields = new Set(['type', ...MACHINE_EVENT_FIELDS, ...(allow.eventFields ?? [])])

  const sanitizeContext = (context: unknown): Json => (isRecord(context) ? pick(context, contextFields) : {})

  const sanitizeEvent = <E extends InspectedEventObject>(event: E): E => {
    const result: Json = {}
    for (const [key, value] of Object.entries(event)) {
      if (key === 'output') result.output = redactOutput(value)
      else if (key === 'error') result.error = redactError(value)
      else result[key] = eventFields.has(key) ? value : REDACTED
    }
    return result as E
  }

  const serialize = <E extends { type: string }>(inspection: E): E => {
    const event = inspection as unknown as Json & { type: string }
    const inner = isRecord(event.event) ? sanitizeEvent(event.event as InspectedEventObject) : event.event
    if (event.type === '@xstate.event') return { ...event, event: inner } as unknown as E
    const snapshot: Json = isRecord(event.snapshot) ? event.snapshot : {}
    const safeSnapshot: Json = { status: snapshot.status }
    if ('value' in snapshot) safeSnapshot.value = snapshot.value
    if ('context' in snapshot) safeSnapshot.context = sanitizeContext(snapshot.context)
    if ('output' in snapshot) safeSnapshot.output = redactOutput(snapshot.output)
    if ('error' in snapshot) safeSnapshot.error = redactError(snapshot.error)
    if (event.type === '@xstate.snapshot')
      return { ...event, event: inner, snapshot: safeSnapshot } as unknown as E
    return { ...event, snapshot: safeSnapshot } as unknown as E
  }

  return { sanitizeContext, sanitizeEvent, serialize }
}
