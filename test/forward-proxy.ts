import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect, type Socket } from 'node:net'

/** One request that passed through the proxy. */
export interface ProxiedRequest {
  /** `connect` for a tunnel (`CONNECT host:port`), `forward` for an absolute-form request. */
  kind: 'connect' | 'forward'
  /** `host:port` the request went to. */
  target: string
  /** The `Proxy-Authorization` header the client sent, if any. */
  authorization: string | undefined
}

/** A real forward proxy on loopback: tunnels `CONNECT` and forwards absolute-form requests, recording each. */
export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  readonly seen: ProxiedRequest[]
  close(): Promise<void>
}

/** Starts a {@link ForwardProxy} on a free port of 127.0.0.1. */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: ProxiedRequest[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((incoming, outgoing) => {
    const target = new URL(incoming.url ?? '')
    seen.push({
      kind: 'forward',
      target: target.host,
      authorization: incoming.headers['proxy-authorization'],
    })
    const headers = { ...incoming.headers }
    delete headers['proxy-authorization']
    delete headers['proxy-connection']
    const upstream = httpRequest(target, { method: incoming.method, headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(outgoing)
    })
    upstream.on('error', () => outgoing.destroy())
    incoming.pipe(upstream)
  })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('connect', (incoming, client: Socket, head: Buffer) => {
    const target = incoming.url ?? ''
    seen.push({ kind: 'connect', target, authorization: incoming.headers['proxy-authorization'] })
    const [host, port] = target.split(':')
    const upstream = connect(Number(port), host ?? '', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    sockets.add(upstream)
    upstream.on('close', () => sockets.delete(upstream))
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
