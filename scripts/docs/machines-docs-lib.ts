import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate'
import { accessTokenMachine, adminFlagMachine, storeHealthMachine } from '../../machines/index.js'

/** One generated documentation file. */
export interface MachineDocFile {
  /** Path relative to the repository root, for example `docs/machines/access-token.md`. */
  path: string
  /** The Markdown content. */
  content: string
}

/** What a page needs besides the machine. */
export interface MachineDocSource {
  /** The machine to document. */
  machine: AnyStateMachine
  /** Page title. */
  title: string
  /** Export name of the machine in `portal-oauth/machines`. */
  exportName: string
  /** Source file of the machine, relative to the repository root. */
  sourceFile: string
  /** Output file, relative to the repository root. */
  outputFile: string
}

/** The machines documented under `docs/machines/`. */
export const MACHINE_DOC_SOURCES: readonly MachineDocSource[] = [
  {
    machine: accessTokenMachine,
    title: 'Access-token machine',
    exportName: 'accessTokenMachine',
    sourceFile: 'machines/access-token.machine.ts',
    outputFile: 'docs/machines/access-token.md',
  },
  {
    machine: adminFlagMachine,
    title: 'Admin-flag machine',
    exportName: 'adminFlagMachine',
    sourceFile: 'machines/admin-flag.machine.ts',
    outputFile: 'docs/machines/admin-flag.md',
  },
  {
    machine: storeHealthMachine,
    title: 'Store-health machine',
    exportName: 'storeHealthMachine',
    sourceFile: 'machines/store-health.machine.ts',
    outputFile: 'docs/machines/store-health.md',
  },
]

/** One row of the transitions table. */
interface TransitionRow {
  from: string
  event: string
  guard: string | undefined
  to: string
  actions: string[]
  description: string | undefined
}

function named(value: unknown, fallback: string): string {
  if (typeof value === 'string') return value
  if (value !== null && typeof value === 'object' && 'type' in value && typeof value.type === 'string') {
    return value.type
  }
  if (typeof value === 'function') {
    const type = (value as { type?: unknown }).type
    if (type === 'xstate.assign') return 'assign (inline)'
    if (typeof type === 'string') return `${type} (inline)`
    return value.name ? `${value.name} (inline)` : fallback
  }
  return fallback
}

/** Every state below the root, parents before their children, in definition order. */
function statesOf(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = []
  const visit = (node: AnyStateNode): void => {
    for (const child of Object.values(node.states) as AnyStateNode[]) {
      out.push(child)
      visit(child)
    }
  }
  visit(machine.root)
  return out
}

/** The root and every state, for the transitions defined on each. */
function nodesWithTransitions(machine: AnyStateMachine): AnyStateNode[] {
  return [machine.root, ...statesOf(machine)]
}

function transitionsOf(state: AnyStateNode): AnyTransitionDefinition[] {
  return [...state.transitions.values()].flat()
}

/** `xstate.after.refreshTimeout.accessToken.x` reads `after refreshTimeout`. */
function eventName(eventType: string): string {
  const delayed = /^xstate\.after\.([^.]+)\./.exec(eventType)
  return delayed ? `after ${delayed[1]}` : eventType
}

function rowOf(transition: AnyTransitionDefinition): TransitionRow {
  const targets = transition.target ?? []
  const guard = transition.guard
  const source = transition.source
  const from = source.parent ? source.key : '(any state)'
  return {
    from,
    event: eventName(String(transition.eventType)),
    guard: guard === undefined ? undefined : named(guard, 'inline guard'),
    to: targets.length === 0 ? from : targets.map((target) => target.key).join(', '),
    actions: transition.actions.map((action) => named(action, 'inline action')),
    description: typeof transition.description === 'string' ? transition.description : undefined,
  }
}

/** Text safe inside a Markdown table cell. */
function cell(text: string | undefined): string {
  if (text === undefined || text === '') return ''
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

function code(text: string): string {
  return `\`${text}\``
}

/** The `stateDiagram-v2` of a machine; compound states become composite states with their own start. */
export function renderMermaid(machine: AnyStateMachine): string {
  const lines = ['```mermaid', 'stateDiagram-v2']
  const renderNode = (node: AnyStateNode, indent: string): void => {
    const initial = node.initial?.target[0]
    if (initial) lines.push(`${indent}[*] --> ${initial.key}`)
    for (const child of Object.values(node.states) as AnyStateNode[]) {
      if (Object.keys(child.states).length > 0) {
        lines.push(`${indent}state ${child.key} {`)
        renderNode(child, `${indent}  `)
        lines.push(`${indent}}`)
      }
    }
  }
  renderNode(machine.root, '  ')
  // Transitions are drawn at the top level: a composite block may only hold transitions between its own states.
  for (const state of statesOf(machine)) {
    for (const row of transitionsOf(state).map(rowOf)) {
      const label = row.guard === undefined ? row.event : `${row.event} [${row.guard}]`
      lines.push(`  ${row.from} --> ${row.to} : ${label}`)
    }
  }
  for (const state of statesOf(machine)) {
    for (const invoke of state.invoke) {
      lines.push(`  note right of ${state.key} : invokes ${named(invoke.src, 'an actor')} as ${invoke.id}`)
    }
  }
  lines.push('```')
  return lines.join('\n')
}

function renderStatesTable(machine: AnyStateMachine): string {
  const states = statesOf(machine)
  const columns: string[] = []
  for (const state of states) {
    for (const key of Object.keys(metaOf(state))) if (!columns.includes(key)) columns.push(key)
  }
  const header = ['State', 'Meaning', ...columns]
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`]
  for (const state of states) {
    const meta = metaOf(state)
    const values = [
      code(state.path.join('.')),
      cell(state.description),
      ...columns.map((column) => cell(meta[column])),
    ]
    lines.push(`| ${values.join(' | ')} |`)
  }
  return lines.join('\n')
}

function metaOf(state: AnyStateNode): Record<string, string> {
  const meta: unknown = state.meta
  if (meta === undefined) return {}
  if (meta === null || typeof meta !== 'object') {
    throw new Error(`machines-docs: meta of state ${state.key} must be an object of strings`)
  }
  const result: Record<string, string> = {}
  for (const [key, value] of Object.entries(meta)) {
    if (typeof value !== 'string')
      throw new Error(`machines-docs: meta.${key} of state ${state.key} is not a string`)
    result[key] = value
  }
  return result
}

function renderTransitionsTable(machine: AnyStateMachine): string {
  const lines = [
    '| From | Event | Guard | To | Actions | What happens |',
    '| --- | --- | --- | --- | --- | --- |',
  ]
  for (const state of nodesWithTransitions(machine)) {
    for (const row of transitionsOf(state).map(rowOf)) {
      const values = [
        code(row.from),
        code(row.event),
        row.guard === undefined ? '' : code(row.guard),
        code(row.to),
        row.actions.map(code).join(', '),
        cell(row.description),
      ]
      lines.push(`| ${values.join(' | ')} |`)
    }
  }
  return lines.join('\n')
}

function renderInvokes(machine: AnyStateMachine): string {
  const lines: string[] = []
  for (const state of statesOf(machine)) {
    for (const invoke of state.invoke) {
      const id = invoke.id
      lines.push(
        `- In ${code(state.key)} the machine invokes ${code(named(invoke.src, 'an actor'))} with id ${code(id)}; ` +
          `it ends with ${code(`xstate.done.actor.${id}`)} or ${code(`xstate.error.actor.${id}`)}.`,
      )
    }
  }
  return lines.length === 0 ? '' : ['## Invoked actors', '', ...lines].join('\n')
}

/** The Markdown page of one machine. */
export function renderMachineDoc(source: MachineDocSource): string {
  const { machine } = source
  const intro = typeof machine.root.description === 'string' ? machine.root.description : ''
  const invokes = renderInvokes(machine)
  const parts = [
    `<!-- Generated from ${source.sourceFile} by \`npm run docs:machines\`. Do not edit by hand. -->`,
    '',
    `# ${source.title}`,
    '',
    ...(intro ? [intro, ''] : []),
    `Import it with \`import { ${source.exportName} } from 'portal-oauth/machines'\`. Machine id: ${code(machine.id)}.`,
    '',
    renderMermaid(machine),
    '',
    '## States and what the client does in each',
    '',
    renderStatesTable(machine),
    '',
    '## Transitions',
    '',
    renderTransitionsTable(machine),
    '',
    ...(invokes ? [invokes, ''] : []),
  ]
  return parts.join('\n')
}

/** Every page under `docs/machines/`, as `npm run docs:machines` writes them. */
export function renderMachineDocs(): MachineDocFile[] {
  return MACHINE_DOC_SOURCES.map((source) => ({ path: source.outputFile, content: renderMachineDoc(source) }))
}
