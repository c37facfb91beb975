import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The vendor's SDK the `cpu` figure compares with, pinned so that runs compare alike. */
export const VENDOR_PACKAGE = '@bitrix24/b24jssdk'
export const VENDOR_VERSION = '2.2.0'

/** A scratch folder of its own: the SDK and its dependencies (axios, ...) never enter this package's tree. */
const SCRATCH = fileURLToPath(new URL('../../.tmp/vendor-sdk/', import.meta.url))

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

function installedVersion(): string | undefined {
  const manifest = `${SCRATCH}node_modules/${VENDOR_PACKAGE}/package.json`
  if (!existsSync(manifest)) return undefined
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version
}

/**
 * The vendor's SDK from a scratch folder, installed from the npm registry on first use; `null` with the reason
 * printed when it cannot be installed (offline), so that the rest of the bench still runs.
 */
export async function loadVendorSdk(): Promise<VendorSdk | null> {
  if (installedVersion() !== VENDOR_VERSION) {
    mkdirSync(SCRATCH, { recursive: true })
    writeFileSync(`${SCRATCH}package.json`, '{ "private": true }\n')
    console.log(`  installing ${VENDOR_PACKAGE}@${VENDOR_VERSION} into .tmp/vendor-sdk for the comparison`)
    const install = spawnSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', `${VENDOR_PACKAGE}@${VENDOR_VERSION}`],
      { cwd: SCRATCH, encoding: 'utf8', shell: process.platform === 'win32' },
    )
    if (install.status !== 0 || installedVersion() !== VENDOR_VERSION) {
      console.error(
        `  ${VENDOR_PACKAGE} could not be installed; the comparison is left out:\n${install.stderr}`,
      )
      return null
    }
  }
  // Its ESM build, as a server written in ESM imports it (resolving from here would pick the CommonJS one).
  const root = `${SCRATCH}node_modules/${VENDOR_PACKAGE}/`
  const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { module?: string }
  return (await import(pathToFileURL(`${root}${manifest.module ?? 'dist/esm/index.mjs'}`).href)) as VendorSdk
}
