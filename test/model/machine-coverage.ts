import type {
  AnyMachineSnapshot,
  AnyStateMachine,
  AnyStateNode,
  AnyTransitionDefinition,
  EventObject,
} from 'xstate'

/** The states and transitions of a machine, named for test output. */
export interface MachineGraph {
  /** Every state node below the root, by its path (`valid`, `refreshing`, …). */
  states: string[]
  /** Every transition of the definition: `source --event [guard]--> target`, one per guarded branch. */
  transitions: string[]
}

function stateNodes(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states as Record<string, AnyStateNode>).flatMap((child) => [
    child,
    ...stateNodes(child),
  ])
}

/**
 * `source --event [guard]--> target` for one transition of a definition, its guarded branch told apart. It names a
 * transition by its place in the definition, so the same transition of `machine.provide(...)` (as a client runs
 * it) gets the same name.
 */
export function transitionName(transition: AnyTransitionDefinition): string {
  const branches = transition.source.transitions.get(transition.eventType) ?? []
  const branch = branches.indexOf(transition)
  const guard: unknown = transition.guard
  let guardName = ''
  if (typeof guard === 'string') guardName = guard
  else if (guard !== null && typeof guard === 'object' && 'type' in guard) guardName = String(guard.type)
  else if (guard !== undefined) guardName = `inline guard of branch ${branch}`
  const targets = (transition.target ?? [transition.source]).map((target) => target.path.join('.')).join(',')
  return `${transition.source.path.join('.')} --${String(transition.eventType)}${guardName ? ` [${guardName}]` : ''}--> ${targets}`
}

function transitionsOf(machine: AnyStateMachine): Map<AnyTransitionDefinition, string> {
  const names = new Map<AnyTransitionDefinition, string>()
  for (const node of stateNodes(machine.root)) {
    for (const branches of node.transitions.values()) {
      for (const transition of branches) names.set(transition, transitionName(transition))
    }
  }
  return names
}

/** The graph of the machine's definition: what a complete set of paths has to visit. */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  return {
    states: stateNodes(machine.root).map((node) => node.path.join('.')),
    transitions: [...transitionsOf(machine).values()],
  }
}

/** A path as the graph tools give it: the snapshot after each event, starting with `xstate.init`. */
export interface CoveredPath {
  steps: ReadonlyArray<{ event: EventObject; state: AnyMachineSnapshot }>
}

/** The states and transitions the paths go through. */
export function visitedBy(machine: AnyStateMachine, paths: readonly CoveredPath[]): MachineGraph {
  const names = transitionsOf(machine)
  const states = new Set<string>()
  const transitions = new Set<string>()
  for (const path of paths) {
    path.steps.forEach((step, index) => {
      for (const node of step.state._nodes as AnyStateNode[]) {
        if (node.path.length > 0) states.add(node.path.join('.'))
      }
      const previous = path.steps[index - 1]
      if (!previous) return
      for (const transition of machine.getTransitionData(previous.state, step.event)) {
        const name = names.get(transition)
        if (name === undefined)
          throw new Error(`a path took a transition the definition does not have: ${step.event.type}`)
        transitions.add(name)
      }
    })
  }
  return { states: [...states], transitions: [...transitions] }
}
