import { afterEach, describe, expect, it } from 'vitest'
import type { AjaxResult, CallExtras, CallOptions, TypeHttp } from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

/** A transport of the application's own that records what it is asked and sends through the built-in one. */
class RecordingTransport implements TypeHttp {
  readonly calls: Array<{ method: string; extras: CallExtras | undefined }> = []
  warningsSilenced = 0
  constructor(readonly inner: TypeHttp) {}
  get apiVersion() {
    return this.inner.apiVersion
  }
  call<T = unknown>(options: CallOptions, extras?: CallExtras): Promise<AjaxResult<T>> {
    this.calls.push({ method: options.method, extras })
    return this.inner.call<T>(options, extras)
  }
  offClientSideWarning(): void {
    this.warningsSilenced += 1
    this.inner.offClientSideWarning()
  }
}

describe('setHttpClient()', () => {
  it("puts the application's transport in place for one API version: its calls and batches go through it", async () => {
    rig = await startRig()
    const v2 = new RecordingTransport(rig.portal.getHttpClient('v2'))
    rig.portal.setHttpClient('v2', v2)
    expect(rig.portal.getHttpClient('v2')).toBe(v2)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await rig.portal.actions.v2.batch.make({ calls: { me: { method: 'profile' } } })
    expect((await rig.portal.actions.v3.call.make({ method: 'tasks.task.list' })).isSuccess).toBe(true)
    expect(v2.calls.map((call) => call.method)).toEqual(['profile', 'batch'])
    // The batch of reads tells its transport so (a dropped read may be sent again).
    expect(v2.calls[1]?.extras).toMatchObject({ readOnly: true })
    expect(rig.emulator.log.restRequests().map((entry) => entry.restMethod)).toEqual([
      'profile',
      'batch',
      'tasks.task.list',
    ])
    rig.portal.offClientSideWarning()
    expect(v2.warningsSilenced).toBe(1)
  })

  it('refuses an unknown API version, naming it', async () => {
    rig = await startRig()
    const v2 = rig.portal.getHttpClient('v2')
    expect(() => rig.portal.setHttpClient('v4' as never, v2)).toThrow(
      'setHttpClient: version must be v2 or v3; v4 is unknown',
    )
  })
})
