import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'

/** How busy the machine was with other work while a figure ran. */
export interface LoadReading {
  /** CPU used by processes other than the bench and its emulator, averaged over the reading, in cores. */
  otherCores: number
  /** Logical cores of the machine. */
  cores: number
  /** Whether the other work was enough to count the run as loaded (see {@link LOADED_AT_CORES}). */
  loaded: boolean
}

/**
 * Other work of at least half a core makes a run "loaded": on two cores, the bench process and the emulator
 * already take most of one, so half a core more is where the variants start to wait for a core between rounds.
 */
export const LOADED_AT_CORES = 0.5

/** Busy and total CPU time of the whole machine so far, in ms (every core). */
function machineTimes(): { busy: number; total: number } {
  let busy = 0
  let total = 0
  for (const cpu of cpus()) {
    const { user, nice, sys, idle, irq } = cpu.times
    busy += user + nice + sys + irq
    total += user + nice + sys + idle + irq
  }
  return { busy, total }
}

/** CPU time of another process so far, in ms, where the OS tells it (Linux `/proc`); 0 elsewhere. */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined || process.platform !== 'linux') return 0
  try {
    // Fields 14 and 15 of /proc/<pid>/stat (after the command name in parentheses): utime and stime, in ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return 0
  }
}

/**
 * Starts measuring the machine's CPU used by anything but this process and `emulatorPid`; `stop()` returns the
 * average. Outside Linux the emulator's CPU cannot be read and counts as other work.
 */
export function startLoadMeter(emulatorPid: number | undefined): { stop(): LoadReading } {
  const machine = machineTimes()
  const own = process.cpuUsage()
  const emulator = processCpuMs(emulatorPid)
  const started = performance.now()
  return {
    stop: () => {
      const now = machineTimes()
      const ownUs = process.cpuUsage(own)
      const ours = (ownUs.user + ownUs.system) / 1000 + (processCpuMs(emulatorPid) - emulator)
      const cores = cpus().length
      const wallMs = Math.max(1, performance.now() - started)
      const otherCores = Math.max(0, (now.busy - machine.busy - ours) / wallMs)
      return { otherCores, cores, loaded: otherCores >= LOADED_AT_CORES }
    },
  }
}
