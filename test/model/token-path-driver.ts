import { expect } from 'vitest'
import { type TokenModelEvent, type TokenPath, topState } from './access-token.model.js'
import type { ModelRig } from './model-rig.js'
import { type TokenStep, tokenStateObservations, tokenSteps } from './token-steps.js'
import { TokenWorld } from './token-world.js'

/**
 * Runs one path of the access-token model on a real `PortalOAuth` and the emulator: each event through
 * `tokenSteps` (a public-API action and what a user sees of it), then, in the state reached, `tokenState`, the
 * wire, the callback and the state's own observation.
 */
export class TokenPathDriver {
  readonly #world: TokenWorld

  constructor(rig: ModelRig) {
    this.#world = new TokenWorld(rig)
  }

  /** Executes every step, then checks the state it reached. */
  async run(path: TokenPath): Promise<void> {
    const world = this.#world
    const { steps } = path
    for (const [index, { event, state }] of steps.entries()) {
      const previous = steps[index - 1]
      if (previous) {
        const played = tokenSteps[event.type] as TokenStep<TokenModelEvent>
        await played.run(world, event, {
          from: previous.state,
          to: state,
          next: steps[index + 1]?.event,
          after: steps[index + 2]?.event,
        })
      }
      const value = topState(state)
      expect(world.rig.portal.tokenState, 'portal.tokenState').toBe(value)
      world.checkEveryStep()
      await tokenStateObservations[value](world, state)
    }
  }

  /** Lets a refresh still in flight end, so the client can be destroyed quietly. */
  settle(): Promise<void> {
    return this.#world.settle()
  }
}
