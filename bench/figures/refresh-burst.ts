import type { PortalOAuth } from '../../src/index.js'
import type { FigureResult } from '../lib/figure.js'
import { type BenchRig, UNPACED } from '../lib/rig.js'

const BURST = 100

interface BurstOutcome {
  refreshes: number
  failed: number
  restRequests: number
}

/** 100 concurrent calls, half v2 and half v3, then what the emulator saw. */
async function burst(rig: BenchRig, portal: PortalOAuth): Promise<BurstOutcome> {
  await rig.emulator.clearLog()
  const settled = await Promise.allSettled(
    Array.from({ length: BURST }, (_, index) =>
      index % 2 === 0
        ? portal.actions.v2.call.make({
            unchecked: true,
            method: 'crm.item.get',
            params: { entityTypeId: 2, id: 1 },
          })
        : portal.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } }),
    ),
  )
  const failed = settled.filter((item) => item.status === 'rejected' || !item.value.isSuccess).length
  const log = await rig.emulator.getLog()
  return {
    refreshes: log.filter((entry) => entry.kind === 'token' && entry.grantType === 'refresh_token').length,
    failed,
    restRequests: log.filter((entry) => entry.kind === 'rest').length,
  }
}

/**
 * Refresh requests for a burst of 100 concurrent v2 and v3 calls on an expired token, in both ways a token expires:
 * known to the client (`expires` in the past: it refreshes before sending) and only known to the portal (every
 * call meets `expired_token`, the client refreshes once and repeats them).
 */
export async function refreshBurstFigure(rig: BenchRig): Promise<FigureResult> {
  const expiredLocally = await rig.client({ restrictionParams: UNPACED }, { expiresIn: 0 })
  const local = await burst(rig, expiredLocally)
  await expiredLocally.destroy()

  const rejectedByPortal = await rig.client({ restrictionParams: UNPACED })
  await rig.emulator.expireAccessTokens()
  const remote = await burst(rig, rejectedByPortal)
  await rejectedByPortal.destroy()

  const row = (label: string, outcome: BurstOutcome) => ({
    figure: `refresh requests, ${BURST} concurrent v2+v3 calls, ${label}`,
    measured: `${outcome.refreshes} refresh, ${outcome.failed} failed`,
    bar: 'exactly 1, 0 failed',
    pass: outcome.refreshes === 1 && outcome.failed === 0,
  })
  return {
    rows: [row('token expired (client knows)', local), row('token rejected by the portal', remote)],
    details: [
      `Token expired and known to the client: ${local.refreshes} refresh request, ${local.restRequests} REST requests, ${local.failed} failed calls.`,
      `Token rejected by the portal (\`expired_token\`): ${remote.refreshes} refresh request, ${remote.restRequests} REST requests (each call once, then repeated once), ${remote.failed} failed calls.`,
    ],
  }
}
