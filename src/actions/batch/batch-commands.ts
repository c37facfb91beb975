import { validateCallOptions } from '../../http/validate-call.js'
import type { ApiVersion } from '../../types/api-version.js'
import { invalidArgument, isPlainObject } from '../../validation/rules.js'
import type { BatchCalls } from './batch-types.js'

/** One validated batch command. */
export interface BatchCommand {
  /** Its key: the caller's name (`as` or record key), or its index in a list. */
  key: string
  /** The caller's name, when it gave one. */
  alias: string | undefined
  /** REST method, normalised. */
  method: string
  /** Method parameters. */
  params: Record<string, unknown>
}

/** Validated batch commands and the shape the results take. */
export interface BatchCommands {
  /** `list`: results as an array in input order; `record`: results keyed by name. */
  shape: 'list' | 'record'
  /** The commands in input order. */
  commands: BatchCommand[]
}

function readCommand(
  item: unknown,
  where: string,
  field: string,
  apiVersion: ApiVersion,
): { method: unknown; params: unknown; as: unknown } {
  if (Array.isArray(item)) {
    if (item.length < 1 || item.length > 2)
      throw invalidArgument(`${where}: ${field}`, 'must be [method, params?]')
    return { method: item[0], params: item[1], as: undefined }
  }
  if (!isPlainObject(item)) {
    throw invalidArgument(`${where}: ${field}`, 'must be [method, params] or { method, params, as? }')
  }
  const extra = Object.keys(item).filter((key) => !['method', 'params', 'as'].includes(key))
  if (extra.length > 0) {
    const hint = extra[0] === 'query' && apiVersion === 'v3' ? ' (give the query as params)' : ''
    throw invalidArgument(`${where}: ${field}.${extra[0]}`, `is not a command option${hint}`)
  }
  return { method: item.method, params: item.params, as: item.as }
}

function checkName(name: unknown, where: string, field: string, apiVersion: ApiVersion): string {
  if (typeof name !== 'string' || name === '')
    throw invalidArgument(`${where}: ${field}`, 'must be a non-empty string')
  // v2 refers to results as $result[name][...], v3 as { $ref: 'name.path' }.
  const forbidden = apiVersion === 'v2' ? /[[\]]/ : /[[\].]/
  if (forbidden.test(name)) {
    throw invalidArgument(
      `${where}: ${field}`,
      `must not contain ${apiVersion === 'v2' ? '[ or ]' : '[, ] or .'}, got ${JSON.stringify(name)}`,
    )
  }
  return name
}

/**
 * Validates the commands of a batch in any accepted form. Throws an `SdkError` naming the command on a bad method
 * or parameters, a bad or repeated name, or names that JavaScript would reorder (an integer-like name after a
 * word), which would change the order in which the portal runs the commands.
 */
export function readBatchCommands(calls: BatchCalls, apiVersion: ApiVersion, action: string): BatchCommands {
  const where = `${apiVersion} ${action}`
  const shape = Array.isArray(calls) ? 'list' : isPlainObject(calls) ? 'record' : undefined
  if (shape === undefined) {
    throw invalidArgument(`${where}: calls`, 'must be an array of commands or an object of named commands')
  }
  const entries: Array<[string | undefined, unknown, string]> =
    shape === 'list'
      ? (calls as readonly unknown[]).map((item, index) => [undefined, item, `calls[${index}]`])
      : Object.entries(calls).map(([name, item]) => [name, item, `calls.${name}`])
  const seen = new Set<string>()
  const commands = entries.map(([name, item, field], index): BatchCommand => {
    const raw = readCommand(item, where, field, apiVersion)
    if (shape === 'record' && raw.as !== undefined && raw.as !== name) {
      throw invalidArgument(`${where}: ${field}.as`, 'must be left out: the key already names the command')
    }
    const alias =
      shape === 'record'
        ? checkName(name, where, field, apiVersion)
        : raw.as === undefined
          ? undefined
          : checkName(raw.as, where, `${field}.as`, apiVersion)
    const key = alias ?? String(index)
    if (seen.has(key))
      throw invalidArgument(`${where}: ${field}`, `repeats the command name ${JSON.stringify(key)}`)
    seen.add(key)
    let valid: ReturnType<typeof validateCallOptions>
    try {
      valid = validateCallOptions(
        { method: raw.method as string, params: raw.params as Record<string, unknown> | undefined },
        apiVersion,
      )
    } catch (error) {
      throw invalidArgument(
        `${where}: ${field}`,
        error instanceof Error ? error.message.replace(/^v\d call: /, '') : '',
      )
    }
    return { key, alias, method: valid.method, params: valid.params }
  })
  const keys = commands.map((command) => command.key)
  const wireOrder = Object.keys(Object.fromEntries(keys.map((key) => [key, true])))
  if (apiVersion === 'v2' && wireOrder.some((key, index) => key !== keys[index])) {
    throw invalidArgument(
      `${where}: calls`,
      'mix integer-like names with other names, which would change the order the commands run in; name every command, or none',
    )
  }
  return { shape, commands }
}
