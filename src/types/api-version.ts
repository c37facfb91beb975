/** The two REST API versions exposed side by side (contract 1.8). */
export const ApiVersion = {
  /** REST v2: `{clientEndpoint}{method}`. */
  v2: 'v2',
  /** REST v3: `{clientEndpoint}api/{method}`. */
  v3: 'v3',
} as const

/** `'v2'` or `'v3'`. */
export type ApiVersion = (typeof ApiVersion)[keyof typeof ApiVersion]
