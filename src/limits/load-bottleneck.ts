import type Bottleneck from 'bottleneck'

let loading: Promise<typeof Bottleneck> | undefined

/**
 * bottleneck, imported on first use: most instances never wait for a slot, and importing it costs tens of
 * milliseconds at start-up.
 */
export function loadBottleneck(): Promise<typeof Bottleneck> {
  loading ??= import('bottleneck').then((module) => module.default)
  return loading
}
