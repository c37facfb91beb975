import { afterEach, describe, expect, it } from 'vitest'
import type { InspectionEvent } from 'xstate'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

/** The machine ids of the actors an inspector has been told of, and the token machine's states it was shown. */
function seen(events: InspectionEvent[]) {
  const machines = events
    .filter((event) => event.type === '@xstate.actor')
    .map((event) => (event.actorRef as { logic?: { id?: string } }).logic?.id)
  const tokenStates = events
    .filter((event) => event.type === '@xstate.snapshot')
    .filter((event) => (event.actorRef as { logic?: { id?: string } }).logic?.id === 'accessToken')
    .map((event) => (event.snapshot as { value?: unknown }).value)
  return { machines, tokenStates }
}

describe('the inspect option', () => {
  it('shows the token machine from construction, before any call or look at the token', async () => {
    const events: InspectionEvent[] = []
    rig = await startRig({ client: { inspect: (event) => events.push(event) } })
    const { machines, tokenStates } = seen(events)
    expect(machines).toContain('accessToken')
    expect(tokenStates).toContain('valid')
  })
})
