/**
 * `npm run bench:profile`: where the CPU of a `call.make` goes. Runs `bench/children/call-profile.ts` under
 * `node --cpu-prof` (the built package, the emulator in this process's child, not in the profile), then splits the
 * self time of the profiled process's samples, taken while the measured calls ran, into ky, the default adapter
 * (src/http/undici-fetch.ts and text-exchange.ts), the client's own code (the rest of src/), undici, garbage
 * collection and the rest.
 * Prints a Markdown table for docs/benchmarks.md. `PROFILE_CALLS` (default 20000) and `PROFILE_CONCURRENCY`
 * (default 1; give 32 for the concurrent mode) set the run. `PROFILE_COMPARE=ky` profiles the client and ky alone
 * (the CPU figure's ky row: the client's options, no client code) in one process, their windows of calls
 * alternating, and splits both side by side. The profile file is kept in .tmp/profiles/.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ProfileWindow } from './children/call-profile.js'
import { startBenchRig } from './lib/rig.js'

const calls = Number(process.env.PROFILE_CALLS ?? 20_000)
const concurrency = Number(process.env.PROFILE_CONCURRENCY ?? 1)
const compare = process.env.PROFILE_COMPARE === 'ky'
const DIR = fileURLToPath(new URL('../.tmp/profiles/', import.meta.url))
const CHILD = fileURLToPath(new URL('children/call-profile.ts', import.meta.url))

/** The parts a call's CPU is split into, in the order printed. */
const PARTS = [
  'ky',
  "Node's Request/Headers/Response/AbortSignal (what ky builds per call)",
  'adapter (src/http/undici-fetch.ts, text-exchange.ts)',
  'client (rest of src/)',
  "the measured closure (ky alone's: the body built, the answer parsed)",
  'undici (the HTTP client)',
  'socket writes and reads (writev, streams, net)',
  'GC',
  'other (microtasks, timers, JSON, Node internals)',
] as const
type Part = (typeof PARTS)[number]

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string }
}
interface Profile {
  nodes: ProfileNode[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

/** Which part a function's self time belongs to, by its script. */
function partOf(node: ProfileNode): Part | null {
  const { url, functionName } = node.callFrame
  if (functionName === '(idle)') return null
  if (functionName === '(garbage collector)') return 'GC'
  if (url.includes('/node_modules/ky/')) return 'ky'
  // Node's own fetch classes live in its bundled copy of undici; the adapter uses npm's undici for the HTTP.
  if (url.includes('node:internal/deps/undici') || url.includes('node:internal/abort_controller')) {
    return "Node's Request/Headers/Response/AbortSignal (what ky builds per call)"
  }
  if (url.includes('/node_modules/undici/')) return 'undici (the HTTP client)'
  if (url.includes('/dist/src/http/undici-fetch.js') || url.includes('/dist/src/http/text-exchange.js'))
    return 'adapter (src/http/undici-fetch.ts, text-exchange.ts)'
  if (url.includes('/dist/src/')) return 'client (rest of src/)'
  if (url.includes('/bench/lib/call-variants.'))
    return "the measured closure (ky alone's: the body built, the answer parsed)"
  if (
    (url === '' &&
      /^(writev|writeUtf8String|writeBuffer|readStop|readStart|onStreamRead)$/.test(functionName)) ||
    /node:(internal\/)?(streams|stream_base_commons|net)/.test(url)
  ) {
    return 'socket writes and reads (writev, streams, net)'
  }
  return 'other (microtasks, timers, JSON, Node internals)'
}

function runChild(input: object): Promise<ProfileWindow[]> {
  const args = ['--cpu-prof', `--cpu-prof-dir=${DIR}`, '--import', 'tsx', CHILD, JSON.stringify(input)]
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`profile child exited with code ${code}`))
      else resolve(JSON.parse(output.trim().split('\n').at(-1) ?? '[]'))
    })
  })
}

/** Self time per part and CPU of the windows of one variant. */
interface Split {
  selfUs: Map<Part, number>
  total: number
  cpuUs: number
  calls: number
}

async function main(): Promise<void> {
  rmSync(DIR, { recursive: true, force: true })
  mkdirSync(DIR, { recursive: true })
  const rig = await startBenchRig()
  let windows: ProfileWindow[]
  try {
    windows = await runChild({
      pair: await rig.pair(),
      secret: { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret },
      calls,
      concurrency,
      ...(compare ? { kyPair: await rig.pair() } : {}),
    })
  } finally {
    await rig.close()
  }
  const file = readdirSync(DIR).find((name) => name.endsWith('.cpuprofile'))
  if (!file) throw new Error('no .cpuprofile written')
  const profile = JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')) as Profile
  const parts = new Map<number, Part | null>(profile.nodes.map((node) => [node.id, partOf(node)]))
  // The child's windows and the profile's timestamps are both the monotonic clock in us: keep the samples in them.
  let time = profile.startTime
  const stamps = profile.timeDeltas.map((delta) => {
    time += delta
    return time
  })
  const end = stamps.at(-1) ?? time
  if (windows.some((window) => window.from < profile.startTime || window.to > end)) {
    throw new Error('the marks of the measured calls are not on the clock of the profile')
  }
  const splits = new Map<ProfileWindow['variant'], Split>()
  for (const window of windows) {
    const split = splits.get(window.variant) ?? {
      selfUs: new Map(PARTS.map((part) => [part, 0])),
      total: 0,
      cpuUs: 0,
      calls: 0,
    }
    split.cpuUs += window.cpuUs
    split.calls += window.calls
    splits.set(window.variant, split)
  }
  let next = 0
  for (let index = 0; index < profile.samples.length; index += 1) {
    const stamp = stamps[index]!
    while (next < windows.length && windows[next]!.to < stamp) next += 1
    const window = windows[next]
    if (!window || stamp < window.from) continue
    const part = parts.get(profile.samples[index]!)
    if (!part) continue
    const split = splits.get(window.variant)!
    const spent = (stamps[index + 1] ?? stamp) - stamp
    split.selfUs.set(part, split.selfUs.get(part)! + spent)
    split.total += spent
  }
  const mode = concurrency === 1 ? 'sequential' : `${concurrency} concurrent`
  const variants = [...splits.keys()]
  const perCall = (split: Split, us: number): string => `${(us / split.calls).toFixed(1)} us`
  console.log(`\n${calls} calls per variant, ${mode}; profile: .tmp/profiles/${file}\n`)
  console.log(
    `| part of the client process | ${variants.map((name) => (name === 'ky' ? 'ky alone | share' : 'client | share')).join(' | ')} |`,
  )
  console.log(`| --- | ${variants.map(() => '---: | ---:').join(' | ')} |`)
  for (const part of PARTS) {
    const cells = variants.map((name) => {
      const split = splits.get(name)!
      const us = split.selfUs.get(part)!
      return `${perCall(split, us)} | ${((us / split.total) * 100).toFixed(0)} %`
    })
    console.log(`| ${part} | ${cells.join(' | ')} |`)
  }
  const totals = variants.map((name) => `${perCall(splits.get(name)!, splits.get(name)!.total)} | 100 %`)
  console.log(`| sampled, not idle | ${totals.join(' | ')} |`)
  const cpu = variants.map((name) => `${perCall(splits.get(name)!, splits.get(name)!.cpuUs)} |`)
  console.log(`| process CPU (process.cpuUsage) | ${cpu.join(' | ')} |`)
}

await main()
