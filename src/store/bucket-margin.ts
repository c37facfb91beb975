/**
 * Drain kept free in a shared leaky bucket, ms: requests that left one after the other may reach the portal closer
 * together (network, busy event loops). Measured at 20 requests/s: 10 ms let a rejection through now and then,
 * 100 ms none with busy CPUs, but a rejection or two came through with four processes on two cores loaded several
 * times over; 250 ms covers that too, for a quarter of a second of the bucket's drain.
 */
export const DEFAULT_BUCKET_MARGIN_MS = 250

/** The requests a bucket admits at once when `marginMs` of drain stay free; one at least. */
export function bucketCapacity(burstLimit: number, drainRate: number, marginMs: number): number {
  return Math.max(1, burstLimit - (marginMs * drainRate) / 1000)
}
