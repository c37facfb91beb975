/**
 * `npm run catalogue:budget`: the type-check budget of the catalogue (see typecheck-measure.ts for what is
 * measured). Prints the median wall time of each entry point's consumer against the package with the catalogue
 * and against one whose catalogue names no method, alternating runs, and the difference (the budget: at most +2 s).
 * `RUNS` sets the runs (default 7).
 */
import { measureTypecheckBudget } from './typecheck-measure.js'

const runs = Number(process.env.RUNS ?? 7)
console.log(`tsc on a consumer of 20 methods, median of ${runs} alternating runs (wall, s)`)
console.log('entry point | method: string | catalogue | difference')
for (const { entryPoint, stringSeconds, catalogueSeconds } of measureTypecheckBudget(runs)) {
  const difference = catalogueSeconds - stringSeconds
  console.log(
    `${entryPoint} | ${stringSeconds.toFixed(2)} | ${catalogueSeconds.toFixed(2)} | ${(difference >= 0 ? '+' : '') + difference.toFixed(2)}`,
  )
}
