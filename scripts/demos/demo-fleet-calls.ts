/** The job loop of one worker of `npm run demo:fleet`, shared by the worker processes and the in-process fleets. */
import type { PortalFleet } from '../../src/index.js'

/** Calls of one worker on one portal: 4 workers stay under the portal's burst of 50. */
export const CALLS = 10

/** How one call ended: `killed` when its worker was stopped before it settled. */
export type CallOutcome = 'ok' | 'failed' | 'killed'

/**
 * On every portal at once, `CALLS` mixed v2/v3 calls one after the other, each taking the portal's client from the
 * fleet; `settled` hears of each call as it ends (with the error code of a failed one).
 */
export async function runWorker(
  fleet: PortalFleet,
  memberIds: readonly string[],
  settled: (memberId: string, outcome: CallOutcome, code?: string) => void | Promise<void>,
): Promise<void> {
  const call = async (memberId: string, index: number): Promise<void> => {
    try {
      const client = await fleet.get(memberId)
      const result =
        index % 3 === 0
          ? await client.actions.v3.call.make({ method: 'tasks.task.list' })
          : await client.actions.v2.call.make({ method: index % 3 === 1 ? 'profile' : 'user.current' })
      if (result.isSuccess) await settled(memberId, 'ok')
      else await settled(memberId, 'failed', String((result.getErrors()[0] as { code?: unknown })?.code))
    } catch (error) {
      const code = (error as { code?: string }).code
      await settled(memberId, code === 'JSSDK_CLIENT_DESTROYED' ? 'killed' : 'failed', code)
    }
  }
  await Promise.all(
    memberIds.map(async (memberId) => {
      for (let index = 0; index < CALLS; index += 1) await call(memberId, index)
    }),
  )
}
