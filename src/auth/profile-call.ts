// Kept apart from admin-flag.ts (which loads XState) because the auth manager's public declarations name it.

/** The v2 call `initIsAdmin()` reads `profile` with (the client's own, which sends through the auth side again). */
export interface ProfileCall {
  /** Sends one v2 call; resolves with its result. */
  make<T>(options: { method: string; requestId?: string }): Promise<{
    getErrors(): Iterable<Error>
    getData(): { result?: T } | null | undefined
  }>
}

/** Where `initIsAdmin()` finds the v2 call it reads `profile` with: the client itself, whose actions are built on first use. */
export interface ProfileCallSource {
  /** The client's actions. */
  readonly actions: { readonly v2: { readonly call: ProfileCall } }
}
