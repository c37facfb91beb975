/**
 * What `new PortalHook(params)` takes: the parts of an inbound webhook URL `{b24Url}/rest/{userId}/{secret}/`.
 * The strings may come straight from `process.env`: a missing one throws `JSSDK_INVALID_ARGUMENT` at run time.
 */
export interface PortalHookParams {
  /** The portal's address, for example `https://portal.example.com` (no path). */
  b24Url: string | undefined
  /** Id of the user the webhook acts as. */
  userId: number
  /** The webhook's secret code. A secret: never logged, never in an error. */
  secret: string | undefined
}
