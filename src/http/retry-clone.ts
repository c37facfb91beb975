/** `Request.prototype.clone` replaced on one request: the request itself serves every attempt. */
// Stryker disable next-line BlockStatement: a clone of undefined makes ky keep its request too; CPU is all that differs
function sameRequest(this: Request): Request {
  return this
}

/**
 * Lets ky send a body-less `Request` again without cloning it. Before each attempt ky clones its `Request` so that a
 * retry has a body stream not yet read; a request whose body travels beside it (the default adapter's side channel)
 * has no stream to keep, and the clone (a second `Request`, `Headers` and followed `AbortSignal` per call) was about
 * 6 us of CPU per call and garbage for the GC. A request with a body keeps ky's clone. ky still makes every attempt
 * (a timed-out attempt gets a new `Request` from ky, as before).
 */
// Stryker disable next-line BlockStatement: without it ky clones the request, which sends the same (CPU is all that differs)
export function shareBodylessRequest(request: Request): void {
  // Stryker disable next-line ConditionalExpression: the transport gives it body-less requests only (a body comes in a new Request)
  if (request.body === null) request.clone = sameRequest
}
