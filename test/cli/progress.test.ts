import { describe, expect, it } from 'vitest'
import type { CliIo } from '../../src/cli/io.js'
import { ListProgress } from '../../src/cli/progress.js'

function io(stderrIsTTY: boolean): CliIo & { err: string[] } {
  const err: string[] = []
  return {
    err,
    stdout: { write: () => true },
    stderr: { write: (text: string) => err.push(text) },
    stdoutIsTTY: false,
    stderrIsTTY,
    env: {},
    signal: new AbortController().signal,
  }
}

describe('the progress of a listing', () => {
  it('on a terminal, a bar redrawn in place up to 100%, then a new line', () => {
    const terminal = io(true)
    const progress = new ListProgress(terminal, 'crm.item.list', 120)
    progress.page(50)
    progress.page(50)
    progress.page(20)
    progress.done()
    expect(terminal.err[0]).toMatch(/^\rcrm\.item\.list █{13}░{17} 50\/120 42%$/)
    expect(terminal.err.at(-1)).toBe(`\rcrm.item.list ${'█'.repeat(30)} 120/120 100%\n`)
  })

  it('on a terminal without a total, the count alone', () => {
    const terminal = io(true)
    const progress = new ListProgress(terminal, 'tasks.task.list', undefined)
    progress.page(50)
    expect(terminal.err).toEqual(['\rtasks.task.list 50 rows'])
  })

  it('elsewhere, one plain line at the end', () => {
    const piped = io(false)
    const progress = new ListProgress(piped, 'user.get', 120)
    progress.page(50)
    progress.page(70)
    progress.done()
    expect(piped.err).toEqual(['user.get: 120 rows\n'])
  })
})
