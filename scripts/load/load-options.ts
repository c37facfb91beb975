/** The options of `npm run load:fleet`: environment variables, overridden by flags, checked with errors naming them. */

/** What one run of the load test does. */
export interface LoadOptions {
  /** Portals installed, each with its own emulated portal. */
  portals: number
  /** Worker processes, each calling every portal. */
  processes: number
  /** Each process calls each portal once per this many ms. */
  intervalMs: number
  /** Length of the measured calls phase, s. */
  durationS: number
  /**
   * The measured run's calls per second as a share of the capacity the search before it found (the rate of
   * `intervalMs` at most); 0: no search, the rate of `intervalMs`.
   */
  share: number
  /** Length of each step of the capacity search, s. */
  stepS: number
  /** Share of the portals whose pair falls due during the run, 0 to 1. */
  expiring: number
  /** The workers' `--max-semi-space-size`, MB. */
  semiSpaceMb: number
  /** The workers' `--heap-growing-percent`; 0 leaves V8's own growing factor. */
  heapGrowingPercent: number
  /** The fleet's `RedisStore({ slotBatchMs })`, as docs/fleet.md advises at hundreds of calls per second; 0: none. */
  slotBatchMs: number
  /** `LOAD_QUICK=1`: fewer portals and a shorter run by default. */
  quick: boolean
  /** `LOAD_STRICT=1`: a missed bar exits 1 as well. */
  strict: boolean
  /** `LOAD_DIST=1`: the workers run the built package (dist/), as users run it, not the sources through tsx. */
  dist: boolean
}

/** One numeric option: its environment variable, its flag, its bounds and defaults. */
interface NumericOption {
  key:
    | 'portals'
    | 'processes'
    | 'intervalMs'
    | 'durationS'
    | 'share'
    | 'stepS'
    | 'expiring'
    | 'semiSpaceMb'
    | 'heapGrowingPercent'
    | 'slotBatchMs'
  env: string
  flag: string
  min: number
  max: number
  integer: boolean
  fallback: number
  /** The default under `LOAD_QUICK=1`, when it differs. */
  quick?: number
}

const NUMERIC: readonly NumericOption[] = [
  {
    key: 'portals',
    env: 'LOAD_PORTALS',
    flag: '--portals',
    min: 1,
    max: 20_000,
    integer: true,
    fallback: 1000,
    quick: 50,
  },
  {
    key: 'processes',
    env: 'LOAD_PROCESSES',
    flag: '--processes',
    min: 1,
    max: 64,
    integer: true,
    fallback: 4,
  },
  {
    key: 'intervalMs',
    env: 'LOAD_INTERVAL_MS',
    flag: '--interval',
    min: 10,
    max: 600_000,
    integer: true,
    fallback: 2000,
  },
  {
    key: 'durationS',
    env: 'LOAD_DURATION_S',
    flag: '--duration',
    min: 1,
    max: 3600,
    integer: true,
    fallback: 30,
    quick: 10,
  },
  {
    key: 'share',
    env: 'LOAD_SHARE',
    flag: '--share',
    min: 0,
    max: 1,
    integer: false,
    fallback: 0.5,
  },
  {
    key: 'stepS',
    env: 'LOAD_STEP_S',
    flag: '--step',
    min: 1,
    max: 60,
    integer: true,
    fallback: 5,
    quick: 1,
  },
  {
    key: 'expiring',
    env: 'LOAD_EXPIRING',
    flag: '--expiring',
    min: 0,
    max: 1,
    integer: false,
    fallback: 0.1,
  },
  {
    key: 'semiSpaceMb',
    env: 'LOAD_SEMI_SPACE_MB',
    flag: '--semi-space',
    min: 1,
    max: 256,
    integer: true,
    fallback: 16,
  },
  {
    key: 'heapGrowingPercent',
    env: 'LOAD_HEAP_GROWING_PERCENT',
    flag: '--heap-growing',
    min: 0,
    max: 1000,
    integer: true,
    fallback: 100,
  },
  {
    key: 'slotBatchMs',
    env: 'LOAD_SLOT_BATCH_MS',
    flag: '--slot-batch',
    min: 0,
    max: 1000,
    integer: true,
    fallback: 5,
  },
]

const SWITCHES = [
  { key: 'quick', env: 'LOAD_QUICK', flag: '--quick' },
  { key: 'strict', env: 'LOAD_STRICT', flag: '--strict' },
  { key: 'dist', env: 'LOAD_DIST', flag: '--dist' },
] as const

/** A bad option: the message names the environment variable and the flag. */
export class LoadOptionError extends Error {
  override readonly name = 'LoadOptionError'
}

/** The options' help text, printed with `--help`. */
export const LOAD_USAGE = [
  'npm run load:fleet [-- --portals=N --processes=P --interval=MS --duration=S --share=SHARE --step=S --expiring=SHARE --semi-space=MB --heap-growing=PERCENT --slot-batch=MS --quick --strict]',
  '(npm run load:fleet builds the package and passes --dist)',
  ...NUMERIC.map(
    (option) =>
      `  ${option.flag.padEnd(12)} ${option.env.padEnd(17)} default ${option.fallback}` +
      (option.quick === undefined ? '' : ` (${option.quick} with LOAD_QUICK=1)`),
  ),
  '  --quick      LOAD_QUICK=1      50 portals for 10 s unless given',
  '  --strict     LOAD_STRICT=1     exit 1 when a bar is missed',
  '  --dist       LOAD_DIST=1       workers run the built package (dist/), not the sources through tsx',
].join('\n')

function parseFlags(argv: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>()
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!
    const [flag, inline] = arg.split('=', 2) as [string, string | undefined]
    const known =
      NUMERIC.some((option) => option.flag === flag) || SWITCHES.some((option) => option.flag === flag)
    if (!known)
      throw new LoadOptionError(
        `unknown option ${flag} (known: ${[...NUMERIC, ...SWITCHES].map((option) => option.flag).join(', ')})`,
      )
    if (SWITCHES.some((option) => option.flag === flag)) {
      flags.set(flag, inline ?? '1')
    } else if (inline !== undefined) {
      flags.set(flag, inline)
    } else {
      const value = argv[index + 1]
      if (value === undefined) throw new LoadOptionError(`${flag} needs a value`)
      flags.set(flag, value)
      index += 1
    }
  }
  return flags
}

function switchOn(name: string, raw: string): boolean {
  if (raw === '1' || raw === 'true') return true
  if (raw === '0' || raw === 'false' || raw === '') return false
  throw new LoadOptionError(`${name} must be 1 or 0, got '${raw}'`)
}

function numeric(option: NumericOption, raw: string, source: string): number {
  const value = raw.trim() === '' ? Number.NaN : Number(raw)
  const kind = option.integer ? 'an integer' : 'a number'
  if (
    !Number.isFinite(value) ||
    (option.integer && !Number.isInteger(value)) ||
    value < option.min ||
    value > option.max
  )
    throw new LoadOptionError(`${source} must be ${kind} from ${option.min} to ${option.max}, got '${raw}'`)
  return value
}

/**
 * How far into the calls the expiring pairs fall due, s: half of `--duration` (1 at least). The calls before it are on
 * valid tokens alone, so that the CPU per call the ratio compares is not that of however many refreshes a run of that
 * rate happens to hold; the refreshes are measured after it.
 */
export function refreshLeadS(durationS: number): number {
  return Math.max(1, Math.floor(durationS / 2))
}

/**
 * An expiring portal is refreshed by its first call after its pair fell due: a run must last the lead and one
 * interval more, or some portals are never called again and the refresh check fails for want of calls.
 */
function timeToRefreshS(durationS: number, intervalMs: number): number {
  return refreshLeadS(durationS) + Math.ceil(intervalMs / 1000)
}

/** Refuses a run too short for {@link timeToRefreshS}. */
function requireTimeToRefresh(options: LoadOptions): void {
  if (options.expiring === 0) return
  const neededS = timeToRefreshS(options.durationS, options.intervalMs)
  if (options.durationS < neededS)
    throw new LoadOptionError(
      `--duration ${options.durationS} is too short for --interval ${options.intervalMs}: the expiring pairs fall due ${refreshLeadS(options.durationS)} s into the calls and each portal is called once per interval, so every one is called after that only in a run of ${neededS} s or more (or give --expiring 0)`,
    )
}

/**
 * The duration of a run at `intervalMs` (the measured rate's, after the capacity search): `durationS`, or longer when
 * the expiring portals need it (see {@link timeToRefreshS}); their pairs fall due {@link refreshLeadS} of
 * `durationS` into it all the same.
 */
export function durationAtInterval(
  options: Pick<LoadOptions, 'durationS' | 'expiring'>,
  intervalMs: number,
): number {
  if (options.expiring === 0) return options.durationS
  return Math.max(options.durationS, timeToRefreshS(options.durationS, intervalMs))
}

/** Reads the options from `env` and `argv` (flags win over the environment); throws {@link LoadOptionError}. */
export function loadOptions(env: NodeJS.ProcessEnv, argv: readonly string[]): LoadOptions {
  const flags = parseFlags(argv)
  const switches = Object.fromEntries(
    SWITCHES.map((option) => {
      const flag = flags.get(option.flag)
      if (flag !== undefined) return [option.key, switchOn(option.flag, flag)]
      const raw = env[option.env]
      return [option.key, raw === undefined ? false : switchOn(option.env, raw)]
    }),
  ) as Record<(typeof SWITCHES)[number]['key'], boolean>
  const values = Object.fromEntries(
    NUMERIC.map((option) => {
      const flag = flags.get(option.flag)
      if (flag !== undefined) return [option.key, numeric(option, flag, option.flag)]
      const raw = env[option.env]
      if (raw !== undefined) return [option.key, numeric(option, raw, option.env)]
      return [option.key, switches.quick ? (option.quick ?? option.fallback) : option.fallback]
    }),
  ) as Record<NumericOption['key'], number>
  const options = { ...values, ...switches } as LoadOptions
  requireTimeToRefresh(options)
  return options
}
