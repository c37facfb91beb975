import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request that reached the attacker's server. */
export interface StolenRequest {
  method: string
  path: string
  body: string
}

/** A loopback server posing as an OAuth server and a portal, that records everything sent to it. */
export interface AttackerServer {
  /** `http://127.0.0.1:PORT`. */
  origin: string
  /** `origin` + `/rest/`: what a forged event names as `server_endpoint` or `client_endpoint`. */
  restRoot: string
  /** Every request received so far. */
  received: StolenRequest[]
  close(): Promise<void>
}

/** What the attacker's `app.info` claims: whatever makes a naive check pass. */
export interface AttackerClaims {
  clientId: string
  memberId: string
  clientEndpoint: string
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      text += chunk
    })
    request.on('end', () => resolve(text))
  })
}

/**
 * Starts the attacker: its token endpoint hands out a pair and its `app.info` confirms any token for `claims`, so a
 * client that asked it would believe it. Tests assert that nothing ever reaches it.
 */
export async function startAttackerServer(claims: AttackerClaims): Promise<AttackerServer> {
  const received: StolenRequest[] = []
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://attacker').pathname
    received.push({ method: request.method ?? '', path, body: await readBody(request) })
    const now = Math.floor(Date.now() / 1000)
    const answer = path.startsWith('/oauth/token')
      ? {
          access_token: 'attacker-access',
          refresh_token: 'attacker-refresh',
          expires: now + 3600,
          expires_in: 3600,
          member_id: claims.memberId,
          client_endpoint: claims.clientEndpoint,
          status: 'L',
        }
      : {
          result: {
            client_id: claims.clientId,
            expires: now + 3600,
            install: { installed: true, member_id: claims.memberId, client_endpoint: claims.clientEndpoint },
          },
        }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    restRoot: `${origin}/rest/`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** Whether `secret` appears in anything the attacker received. */
export function reached(attacker: AttackerServer, secret: string): boolean {
  return attacker.received.some((entry) => entry.body.includes(secret) || entry.path.includes(secret))
}
