/**
 * `npm run catalogue:budget`: the type-check budget of the catalogue (see typecheck-measure.ts for what is
 * measured). Prints the median wall time of each entry point's consumer against the package with the catalogue
 * and against one whose catalogue names no method, alternating runs, and the difference, on TypeScript 7 and 5.9.
 * `RUNS` sets the runs (default 7), `TSC` the compilers (`7,5.9`), `ENTRY` the consumers (`call,call300,list,batch`);
 * `KEEP=1` leaves the consumers and package copies under .tmp/catalogue-budget.
 */
import { measureTypecheckBudget } from './typecheck-measure.js'

const runs = Number(process.env.RUNS ?? 7)
const list = (value: string | undefined): string[] | undefined =>
  value?.split(',').filter((item) => item !== '')
const selection = {
  compilers: list(process.env.TSC),
  entryPoints: list(process.env.ENTRY),
  keep: process.env.KEEP === '1',
}
console.log(`tsc on consumers of documented methods, median of ${runs} alternating runs (CPU time, s)`)
console.log('TypeScript | entry point | method: string | catalogue | difference')
for (const { compiler, entryPoint, stringSeconds, catalogueSeconds } of measureTypecheckBudget(
  runs,
  selection,
)) {
  const difference = catalogueSeconds - stringSeconds
  console.log(
    `${compiler} | ${entryPoint} | ${stringSeconds.toFixed(2)} | ${catalogueSeconds.toFixed(2)} | ${(difference >= 0 ? '+' : '') + difference.toFixed(2)}`,
  )
}
