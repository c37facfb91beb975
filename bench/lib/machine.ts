import { cpus, totalmem } from 'node:os'

/** The machine the figures were measured on. */
export interface MachineInfo {
  /** CPU model as the OS names it. */
  cpu: string
  /** Logical cores. */
  cores: number
  /** Total memory, GB. */
  memoryGb: number
  /** Node.js version. */
  node: string
  /** Platform and architecture. */
  platform: string
  /** ISO date and time of the run. */
  date: string
}

/** Describes this machine. */
export function machineInfo(): MachineInfo {
  const list = cpus()
  return {
    cpu: list[0]?.model.trim() || 'unknown',
    cores: list.length,
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  }
}
