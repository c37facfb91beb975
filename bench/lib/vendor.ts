import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/**
 * The vendor's SDK the `cpu` figure compares with: a dev dependency pinned to this exact version in package.json,
 * so that runs compare alike and the bench installs nothing while it runs.
 */
export const VENDOR_PACKAGE = '@bitrix24/b24jssdk'
export const VENDOR_VERSION = '2.2.0'

/** The part of the vendor's SDK the figure uses: the OAuth client and a silent logger. */
export interface VendorSdk {
  B24OAuth: new (
    authOptions: object,
    secret: { clientId: string; clientSecret: string },
    options?: { restrictionParams?: object },
  ) => VendorClient
  LoggerFactory: { createNullLogger(): unknown }
}

/** A vendor client, as far as the figure calls it. */
export interface VendorClient {
  setLogger(logger: unknown): void
  offClientSideWarning(): void
  destroy(): void
  actions: {
    v2: {
      call: {
        make(options: { method: string; params: object; requestId?: string }): Promise<{
          isSuccess: boolean
          getErrorMessages(): string[]
        }>
      }
    }
  }
}

/**
 * The vendor's SDK from node_modules (its ESM build, as a server written in ESM imports it). Throws when the
 * installed version is not the pinned one, so that a figure never compares with another release by mistake.
 */
export async function loadVendorSdk(): Promise<VendorSdk> {
  const manifest = createRequire(import.meta.url).resolve(`${VENDOR_PACKAGE}/package.json`)
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }
  if (version !== VENDOR_VERSION) {
    throw new Error(
      `${VENDOR_PACKAGE} ${version} is installed, the bench compares with ${VENDOR_VERSION}: run npm ci`,
    )
  }
  return (await import(VENDOR_PACKAGE)) as unknown as VendorSdk
}
