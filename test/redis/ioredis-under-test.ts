/**
 * The ioredis major the Redis tests run on: 5 (the `ioredis` dev dependency) by default, 6 (the `ioredis6` alias)
 * when `PORTAL_OAUTH_TEST_IOREDIS=6`. Both are supported peers; `.ci/run` runs the Redis tests once on each.
 */
import * as ioredis5 from 'ioredis'
import * as ioredis6 from 'ioredis6'

const chosen = process.env.PORTAL_OAUTH_TEST_IOREDIS === '6' ? ioredis6 : ioredis5

/** The chosen major's `Redis` class (typed as ioredis 5's: the store takes either). */
export const Redis = chosen.Redis as typeof ioredis5.Redis
/** The chosen major's `Cluster` class. */
export const Cluster = chosen.Cluster as typeof ioredis5.Cluster
/** A client of the chosen major. */
export type Redis = ioredis5.Redis
/** A cluster client of the chosen major. */
export type Cluster = ioredis5.Cluster
