// A Stryker ignorer: the arguments of the library's own log lines (`logger.debug(...)`, `this.#deps.logger.warn(...)`,
// `this.#logger.error(...)`). Their wording is not part of the contract, and what they may carry is checked where it
// matters (no secret in any log line: test/hook/secret.test.ts, test/logger/*). Whether a line is written at all is
// still mutated: removing the block around it, or its condition, is not ignored.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin'

const LEVELS = new Set(['debug', 'info', 'warn', 'error'])

/** Whether `node` is `<...>.logger` or `<...>.#logger`. */
function isLogger(node) {
  if (node.type !== 'MemberExpression') return false
  const { property } = node
  return (
    (property.type === 'Identifier' && property.name === 'logger') ||
    (property.type === 'PrivateName' && property.id.name === 'logger')
  )
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'log-lines', {
    shouldIgnore(path) {
      const { node } = path
      if (node.type !== 'CallExpression' || node.callee.type !== 'MemberExpression') return undefined
      const { callee } = node
      if (callee.property.type !== 'Identifier' || !LEVELS.has(callee.property.name)) return undefined
      return isLogger(callee.object) ? 'the wording of a log line is not part of the contract' : undefined
    },
  }),
]
