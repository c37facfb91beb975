import { assign, fromPromise, setup } from 'xstate'
import {
  PROBE_ACTOR_ID,
  type StoreHealthContext,
  type StoreHealthEvent,
  type StoreHealthInput,
} from './store-health.types.js'

/**
 * The store-health machine of a shared store (`RedisStore`): a circuit breaker kept beside its client. `up` while the
 * backend answers. The first operation it fails (no answer within the command timeout, a connection error; an error
 * reply such as READONLY is an answer) makes it `suspect`: from then on the store sends nothing and refuses every
 * operation at once, and one probe goes out. An answer within the cool-down brings it back `up` without a word (a
 * slow answer); a later one was a short outage, said once as it ends; the probe's failure confirms the outage, said
 * once (`down`). After each cool-down the next probe goes out (`probing`), and the first answer brings it back `up`, in
 * one line. The store provides the `probe` actor and the `report*` actions (its log lines) with `provide`.
 */
export const storeHealthMachine = setup({
  types: {
    context: {} as StoreHealthContext,
    events: {} as StoreHealthEvent,
    input: {} as StoreHealthInput,
  },
  actors: {
    /** One read the backend must answer within the command timeout; provided by the store. */
    probe: fromPromise<void>(async () => {
      throw new Error('probe is provided by the store')
    }),
  },
  delays: {
    /** The cool-down between a failure (or a failed probe) and the next probe. */
    cooldown: ({ context }) => context.cooldownMs,
  },
  guards: {
    /** The store was out longer than the cool-down: more than a slow answer, worth a line. */
    outlastedCooldown: ({ context }) =>
      context.since !== null && performance.now() - context.since > context.cooldownMs,
  },
  actions: {
    /** Keeps which failure took the store down, and when. */
    rememberFailure: assign(({ event }) =>
      event.type === 'backend.unreachable' ? { reason: event.reason, since: event.at } : {},
    ),
    /** Forgets the outage. */
    forgetFailure: assign({ reason: null, since: null }),
    /** Says once that the store is down and what it does meanwhile; provided by the store. */
    reportDown: () => {},
    /** Says that the store is back, and how long it was down; provided by the store. */
    reportUp: () => {},
    /** Says, once it is back, that the store was out for a while, too short for a probe to fail; provided by the store. */
    reportShortOutage: () => {},
  },
}).createMachine({
  id: 'storeHealth',
  description:
    'Whether the backend of a shared store answers: a circuit breaker with a cool-down and one probe at a time, so that calls stop waiting for a backend known to be down.',
  context: ({ input }) => ({ cooldownMs: input.cooldownMs, reason: null, since: null }),
  initial: 'up',
  states: {
    up: {
      description: 'The backend answers: every operation is sent.',
      meta: {
        operations: 'Sent, each waiting for its answer at most `commandTimeout`.',
        calls: 'Pace with the shared bucket and read the shared pair.',
      },
      on: {
        'backend.unreachable': {
          target: 'suspect',
          actions: 'rememberFailure',
          description:
            'An operation got no answer within `commandTimeout`, or its connection failed: nothing is sent until a probe is answered.',
        },
      },
    },
    suspect: {
      description: 'An operation failed; one probe in flight tells an outage from a blip.',
      meta: {
        operations: 'Refused at once with the failure that took the store out.',
        calls:
          'Go on with the pair held, paced by a local share (`outageShare`) of the bucket; refreshes wait for `up`.',
      },
      invoke: {
        id: PROBE_ACTOR_ID,
        src: 'probe',
        onDone: [
          {
            guard: 'outlastedCooldown',
            target: 'up',
            actions: ['reportShortOutage', 'forgetFailure'],
            description: 'The probe was answered, later than the cool-down: a short outage, one warning.',
          },
          {
            target: 'up',
            actions: 'forgetFailure',
            description: 'The probe was answered within the cool-down: a slow answer, nothing logged.',
          },
        ],
        onError: {
          target: 'down',
          actions: 'reportDown',
          description: 'The probe failed too: the outage is said once (one warning), then a cool-down.',
        },
      },
      on: {
        'backend.answered': [
          {
            guard: 'outlastedCooldown',
            target: 'up',
            actions: ['reportShortOutage', 'forgetFailure'],
            description:
              'An operation sent before was answered, later than the cool-down: a short outage, one warning.',
          },
          {
            target: 'up',
            actions: 'forgetFailure',
            description: 'An operation sent before was answered within the cool-down: nothing logged.',
          },
        ],
      },
    },
    down: {
      description: 'The backend is known unreachable: nothing is sent until the cool-down ends.',
      meta: {
        operations: 'Refused at once, as in `suspect`.',
        calls: 'As in `suspect`.',
      },
      after: {
        cooldown: {
          target: 'probing',
          description: 'The cool-down (`outageCooldown`) ended: probe the backend.',
        },
      },
      on: {
        'backend.answered': {
          target: 'up',
          actions: ['reportUp', 'forgetFailure'],
          description: 'An operation sent before the outage was answered: the backend is back, one line.',
        },
      },
    },
    probing: {
      description: 'The backend is known unreachable; one probe in flight.',
      meta: {
        operations: 'Refused at once, as in `suspect`.',
        calls: 'As in `suspect`.',
      },
      invoke: {
        id: PROBE_ACTOR_ID,
        src: 'probe',
        onDone: {
          target: 'up',
          actions: ['reportUp', 'forgetFailure'],
          description: 'The probe was answered: back to the shared state, one line.',
        },
        onError: {
          target: 'down',
          description: 'The probe failed or got no answer within `commandTimeout`: another cool-down.',
        },
      },
      on: {
        'backend.answered': {
          target: 'up',
          actions: ['reportUp', 'forgetFailure'],
          description: 'An operation sent before the outage was answered: the backend is back, one line.',
        },
      },
    },
  },
})
