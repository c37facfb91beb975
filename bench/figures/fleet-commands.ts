import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import type { RedisUnderTest } from '../../scripts/dev/redis-server.js'
import { fixed } from '../../scripts/dev/stats.js'
import type { FigureResult } from '../lib/figure.js'
import { lib, redis } from '../lib/package.js'
import { type BenchRig, UNPACED } from '../lib/rig.js'

/** The bar: Redis commands per webhook-style call (`fleet.get()`, then one call) on a valid token. */
export const MAX_COMMANDS_PER_CALL = 1
const CALLS = 200
/** Longer than a leased slot stays usable (40 ms): every call asks Redis, the most a call can cost. */
const SPACED_MS = 50

/**
 * Redis commands per call through a `PortalFleet` on a `RedisStore`, webhook-style: `fleet.get(memberId)` then one
 * `call.make`, on a valid token; the calls spaced so that each asks the shared bucket (no leased slot): the cost of
 * the call that pays most. Counted by the server (`MONITOR`, commands run inside a script left out).
 */
export async function fleetCommandsFigure(rig: BenchRig, server: RedisUnderTest): Promise<FigureResult> {
  const [node] = server.nodes
  const client = new Redis(node!.port, node!.host)
  // MONITOR lists every command a client sent; those a script runs are tagged `lua` and not counted.
  const watcher = new Redis(node!.port, node!.host)
  const monitor = await watcher.monitor()
  let sent = 0
  let counting = false
  monitor.on('monitor', (_time: string, _args: string[], source: string) => {
    if (counting && source !== 'lua') sent += 1
  })
  const store = new redis.RedisStore(client)
  const fleet = new lib.PortalFleet({
    oAuthSecret: { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret },
    store,
    // A bucket no call waits for: a wait is one more round trip, pacing's cost and not the call's.
    restrictionParams: UNPACED,
    logger: lib.createNullLogger(),
  })
  try {
    const pair = await rig.emulator.issueAuthParams()
    await fleet.install(pair)
    // The first get() builds the client from the stored pair; not counted.
    await (await fleet.get(pair.memberId)).actions.v2.call.make({ method: 'profile' })
    await sleep(SPACED_MS)
    counting = true
    for (let index = 0; index < CALLS; index += 1) {
      const portal = await fleet.get(pair.memberId)
      const result = await portal.actions.v2.call.make({ method: 'profile' })
      if (!result.isSuccess) throw new Error(`fleet commands: ${result.getErrorMessages().join('; ')}`)
      await sleep(SPACED_MS)
    }
    // MONITOR reports a command as it runs: the last call's are in once the server answered a command after them.
    await client.ping()
    counting = false
    const perCall = (sent - 1) / CALLS
    return {
      rows: [
        {
          figure: 'Redis commands per call through fleet.get(), valid token',
          measured: `${fixed(perCall, 2)}`,
          bar: `<= ${MAX_COMMANDS_PER_CALL}`,
          pass: perCall <= MAX_COMMANDS_PER_CALL,
        },
      ],
      details: [
        `Fleet commands: ${CALLS} webhook-style calls (\`fleet.get()\`, then a v2 \`profile\` call), ${SPACED_MS} ms apart so that none uses a slot leased by the one before; counted by Redis' \`MONITOR\`, without the commands a script runs.`,
      ],
    }
  } finally {
    await fleet.destroy()
    await store.close()
    client.disconnect()
    monitor.disconnect()
    watcher.disconnect()
  }
}
