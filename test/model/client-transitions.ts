import type { InspectionEvent } from 'xstate'
import type { InspectOption } from '../../src/index.js'
import { transitionName } from './machine-coverage.js'

/**
 * Records the transitions a client's own actors take, by machine id, through the client's `inspect` option: it
 * only listens, so a transition counts only when the client took it by itself (tests never send to its actors).
 */
export class ClientTransitions {
  readonly #taken = new Map<string, Set<string>>()

  /** The observer to give a client as its `inspect` option. */
  readonly inspect: InspectOption = (event: InspectionEvent) => {
    if (event.type !== '@xstate.microstep') return
    for (const transition of event._transitions) {
      const machineId = transition.source.machine.id
      let taken = this.#taken.get(machineId)
      if (!taken) {
        taken = new Set()
        this.#taken.set(machineId, taken)
      }
      taken.add(transitionName(transition))
    }
  }

  /** The transitions clients took in the machine with this id, named as `machineGraph` names them. */
  taken(machineId: string): string[] {
    return [...(this.#taken.get(machineId) ?? [])]
  }
}
