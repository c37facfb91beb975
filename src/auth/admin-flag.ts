import { type Actor, createActor, fromPromise, waitFor } from 'xstate'
import { adminFlagMachine } from '../../machines/admin-flag.machine.js'
import type { AdminFlagState } from '../../machines/admin-flag.types.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { InspectOption } from '../types/inspect-option.js'
import type { ProfileCallSource } from './profile-call.js'

const IS_ADMIN_NOT_INIT_MESSAGE = 'isAdmin not init. You need call B24OAuth::initIsAdmin().'

/** The admin flag of contract 3.3: the admin-flag machine's actor (created on first use) and the `profile` call it runs. */
export class AdminFlag {
  readonly #inspect: InspectOption | undefined
  #actor: Actor<typeof adminFlagMachine> | null = null
  #profileCall: ProfileCallSource | null = null

  constructor(inspect: InspectOption | undefined) {
    this.#inspect = inspect
  }

  /** See `AuthOAuthManager.useProfileCall`. */
  useProfileCall(source: ProfileCallSource): void {
    this.#profileCall = source
  }

  /** The cached flag; throws `JSSDK_OAUTH_IS_ADMIN_NOT_INIT` (spec 7) before `initIsAdmin()` completed once. */
  get isAdmin(): boolean {
    const value = this.#actor?.getSnapshot().context.isAdmin ?? null
    if (value === null) {
      throw new SdkError({ code: SdkErrorCode.IsAdminNotInit, message: IS_ADMIN_NOT_INIT_MESSAGE })
    }
    return value
  }

  /** The machine's current state. */
  get state(): AdminFlagState {
    return (this.#actor?.getSnapshot().value ?? 'notInitialised') as AdminFlagState
  }

  /** Calls `profile` once (concurrent callers share the call) and caches the flag. */
  async init(requestId: string | undefined): Promise<void> {
    const actor = this.actor()
    // Concurrent callers join the load in flight; the machine holds its requestId and how it ended.
    if (actor.getSnapshot().value !== 'loading')
      actor.send(requestId === undefined ? { type: 'init.requested' } : { type: 'init.requested', requestId })
    const { context } = await waitFor(actor, (snapshot) => snapshot.value !== 'loading')
    if (context.loadFailure !== null) throw context.loadFailure
  }

  /** The admin-flag actor, created on first use. */
  actor(): Actor<typeof adminFlagMachine> {
    if (this.#actor) return this.#actor
    const machine = adminFlagMachine.provide({
      actors: {
        loadIsAdmin: fromPromise<boolean, string | undefined>(({ input }) => this.#load(input)),
      },
    })
    this.#actor = createActor(machine, this.#inspect ? { inspect: this.#inspect } : {})
    this.#actor.start()
    return this.#actor
  }

  /** Stops the actor, if any. */
  stop(): void {
    this.#actor?.stop()
  }

  /** `profile`'s `ADMIN` flag, read through the instance's v2 call. */
  async #load(requestId: string | undefined): Promise<boolean> {
    if (!this.#profileCall)
      throw new SdkError({
        code: SdkErrorCode.Internal,
        message: 'initIsAdmin: no v2 call to read profile with',
      })
    const result = await this.#profileCall.actions.v2.call.make<{ ADMIN?: unknown }>({
      method: 'profile',
      ...(requestId === undefined ? {} : { requestId }),
    })
    const [error] = result.getErrors()
    if (error) throw error
    return result.getData()?.result?.ADMIN === true
  }
}
