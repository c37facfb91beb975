import { describe, expect, it } from 'vitest'
import type { AnyStateMachine } from 'xstate'
import { accessTokenMachine, adminFlagMachine } from '../../machines/index.js'
import { tokenShortestPaths, tokenSimplePaths } from './access-token.model.js'
import { adminShortestPaths, adminSimplePaths } from './admin-flag.model.js'
import { type CoveredPath, machineGraph, visitedBy } from './machine-coverage.js'

const machines: Array<[string, AnyStateMachine, () => CoveredPath[]]> = [
  ['access-token', accessTokenMachine, () => [...tokenShortestPaths(), ...tokenSimplePaths()]],
  ['admin-flag', adminFlagMachine, () => [...adminShortestPaths(), ...adminSimplePaths()]],
]

// The plan only: that the model's events let the graph tools reach every transition. Whether the client really takes
// each one is checked after the paths have run, in access-token.test.ts and admin-flag.test.ts.
describe.each(machines)('the generated paths of the %s machine (the plan)', (_name, machine, paths) => {
  const graph = machineGraph(machine)
  const visited = visitedBy(machine, paths())

  it('visit every state of the definition', () => {
    expect(graph.states.length).toBeGreaterThan(0)
    expect([...visited.states].sort()).toEqual([...graph.states].sort())
  })

  it('plan every transition of the definition, each guarded branch included', () => {
    expect(graph.transitions.length).toBeGreaterThan(0)
    const missing = graph.transitions.filter((transition) => !visited.transitions.includes(transition))
    expect(missing, 'transitions no generated path plans: add the event to the test model').toEqual([])
  })
})
