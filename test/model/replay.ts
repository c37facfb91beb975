import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
  initialTransition,
  transition,
} from 'xstate'
import type { StatePath } from 'xstate/graph'

/** How to replay the paths of one model. */
export interface ReplayOptions<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject> {
  /** The machine the paths were generated from. */
  machine: AnyStateMachine
  /** Its input. */
  input?: unknown
  /** The model's events in a snapshot (the same function the model uses). */
  events: (snapshot: TSnapshot) => TEvent[]
  /** What tells two events of the model apart (type plus variant), without the payload computed from context. */
  eventKey: (event: TEvent) => string
  /** What tells two states of the model apart. */
  stateKey: (snapshot: TSnapshot) => string
}

/**
 * The graph tools build a path from the edges of a graph whose vertices are serialised states, and give each step
 * the snapshot first seen for its vertex, with the event computed from that snapshot. When the serialisation leaves
 * context out (it must, to keep the graph finite), a step's snapshot and event payload may come from another way
 * to the same vertex: a `token.rejected` may carry another generation, a step may show another refresh count.
 * Replaying the path from the initial state, with each event recomputed from the snapshot really reached, gives
 * steps whose snapshots and events belong together. A step that does not reach the state the path names throws.
 */
export function replayPath<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject>(
  path: StatePath<TSnapshot, TEvent>,
  options: ReplayOptions<TSnapshot, TEvent>,
): StatePath<TSnapshot, TEvent> {
  const { machine, events, eventKey, stateKey } = options
  const [initial] = initialTransition(machine, options.input)
  let current = initial as TSnapshot
  const steps: StatePath<TSnapshot, TEvent>['steps'] = []
  for (const [index, step] of path.steps.entries()) {
    if (index === 0) {
      steps.push({ event: step.event, state: current })
      continue
    }
    const wanted = eventKey(step.event)
    const event = events(current).find((candidate) => eventKey(candidate) === wanted)
    if (!event) throw new Error(`replay: ${wanted} is not possible in ${stateKey(current)} (step ${index})`)
    const [next] = transition(machine, current, event)
    if (stateKey(next as TSnapshot) !== stateKey(step.state)) {
      throw new Error(
        `replay: ${wanted} leads to ${stateKey(next as TSnapshot)}, the path says ${stateKey(step.state)} (step ${index})`,
      )
    }
    current = next as TSnapshot
    steps.push({ event, state: current })
  }
  return { state: current, steps, weight: path.weight }
}
