import { expect } from 'vitest'
import { waitFor } from 'xstate'
import { SdkError } from '../../src/index.js'
import { EmulatorRestError } from '../../src/testing/index.js'
import type { AdminModelEvent, AdminPath, AdminSnapshot } from './admin-flag.model.js'
import type { ModelRig } from './model-rig.js'
import { type Settled, settle } from './settled.js'
import { within } from './within.js'

/**
 * Runs one path of the admin-flag model as real actions on a `PortalOAuth` and the emulator, and after each step
 * checks what a user observes: `auth.isAdmin`, `profile` calls on the wire, how `initIsAdmin()` ends.
 */
export class AdminPathDriver {
  readonly #rig: ModelRig
  #profileCalls = 0
  #profileFails = false
  #callers: Array<Promise<Settled<void>>> = []

  constructor(rig: ModelRig) {
    this.#rig = rig
  }

  /** Executes every step, then checks the state it reached. */
  async run(path: AdminPath): Promise<void> {
    const { steps } = path
    for (const [index, step] of steps.entries()) {
      await this.#execute(step.event, steps[index + 1]?.event)
      await this.#check(step.state)
    }
  }

  /** Lets a `profile` call still in flight end, so the client can be destroyed quietly. */
  async settle(): Promise<void> {
    const { hold, portal } = this.#rig
    hold.release()
    await within(
      waitFor(portal.auth.adminActor, (snapshot) => !snapshot.matches('loading')),
      'the last profile call to end',
    )
    await Promise.all(this.#callers)
  }

  async #execute(event: AdminModelEvent | { type: 'xstate.init' }, next: AdminModelEvent | undefined) {
    const { portal, emulator, hold } = this.#rig
    switch (event.type) {
      case 'xstate.init':
        return
      case 'init.requested': {
        if (next?.type === 'xstate.done.actor.loadIsAdmin') {
          if (this.#profileFails) {
            throw new Error('this path needs profile to answer after it failed; the driver cannot restore it')
          }
          emulator.setAdmin(next.output)
        } else if (next?.type === 'xstate.error.actor.loadIsAdmin') {
          this.#profileFails = true
          emulator.defineMethod(
            'profile',
            () => {
              throw new EmulatorRestError('ACCESS_DENIED', 'Access denied', 403)
            },
            { versions: ['v2'] },
          )
        }
        this.#profileCalls += 1
        hold.arm({ kind: 'rest', method: 'profile' })
        this.#callers.push(settle(portal.initIsAdmin('model')))
        return
      }
      case 'xstate.done.actor.loadIsAdmin': {
        const outcomes = await this.#release()
        for (const outcome of outcomes) expect(outcome.ok, 'initIsAdmin() resolves').toBe(true)
        return
      }
      case 'xstate.error.actor.loadIsAdmin': {
        const outcomes = await this.#release()
        for (const outcome of outcomes) {
          expect(outcome.ok, 'initIsAdmin() rejects').toBe(false)
          if (!outcome.ok) expect(outcome.error).toMatchObject({ code: 'ACCESS_DENIED' })
        }
        return
      }
    }
  }

  async #release(): Promise<Array<Settled<void>>> {
    const { hold, portal } = this.#rig
    await within(hold.arrived, 'profile to be answered')
    hold.release()
    await within(
      waitFor(portal.auth.adminActor, (snapshot) => !snapshot.matches('loading')),
      'the profile call to end',
    )
    const outcomes = await Promise.all(this.#callers)
    this.#callers = []
    expect(outcomes.length).toBeGreaterThan(0)
    return outcomes
  }

  /** What a user observes in `state`. */
  async #check(state: AdminSnapshot): Promise<void> {
    const { portal, emulator, hold } = this.#rig
    const value = String(state.value)
    const known = state.context.isAdmin
    expect(portal.auth.adminState, 'auth.adminState').toBe(value)
    if (value === 'loading') await within(hold.arrived, 'profile to be answered')
    const profileRequests = emulator.log.restRequests().filter((entry) => entry.restMethod === 'profile')
    expect(profileRequests.length, 'profile calls on the wire').toBe(this.#profileCalls)
    expect(portal.tokenState, 'the admin flag does not touch the token').toBe('valid')
    if (known === null) {
      expect(() => portal.auth.isAdmin).toThrow(SdkError)
      expect(() => portal.auth.isAdmin).toThrow('isAdmin not init. You need call B24OAuth::initIsAdmin().')
      try {
        void portal.auth.isAdmin
      } catch (error) {
        expect(error).toMatchObject({ code: 'JSSDK_OAUTH_IS_ADMIN_NOT_INIT' })
      }
    } else {
      expect(portal.auth.isAdmin, 'auth.isAdmin').toBe(known)
    }
    if (value === 'loading') {
      // A second initIsAdmin() during the call shares it: no second profile call (counted at the next state).
      this.#callers.push(settle(portal.initIsAdmin('model-again')))
      expect(portal.auth.adminState).toBe('loading')
    }
  }
}
