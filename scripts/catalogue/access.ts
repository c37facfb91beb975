/** Last name segments (lower case) of methods that only read. */
const READ_SEGMENTS = new Set([
  'get',
  'list',
  'tail',
  'fields',
  'count',
  'current',
  'info',
  'search',
  'time',
  'types',
])
/** Prefixes of last segments that only read (`getFields`, `listForType`, `isActionAllowed`). */
const READ_PREFIXES = ['get', 'list', 'is', 'has', 'check', 'search', 'find', 'count']
/** Whole method names that only read. */
const READ_NAMES = new Set(['profile', 'methods', 'scope', 'user.admin', 'user.access', 'access.name'])

/** Whether a documented method changes data, judged by its last name segment; unknown verbs count as writes. */
export function writesData(method: string): boolean {
  const name = method.toLowerCase()
  if (READ_NAMES.has(name)) return false
  const segment = name.slice(name.lastIndexOf('.') + 1)
  if (READ_SEGMENTS.has(segment)) return false
  return !READ_PREFIXES.some((prefix) => segment.startsWith(prefix))
}
