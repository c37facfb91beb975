import type { InspectionEvent, Observer } from 'xstate'

/** An `inspect` observer as XState's `createActor` takes it (for example a Stately inspector's `inspect`). */
export type InspectOption = Observer<InspectionEvent> | ((event: InspectionEvent) => void)
