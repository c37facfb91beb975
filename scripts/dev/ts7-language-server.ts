import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** A place a go-to-definition lands on: the file's path and its 1-based line. */
export interface Landing {
  readonly file: string
  readonly line: number
}

/** A JSON-RPC message of the language server protocol, as far as this client reads it. */
interface Message {
  id?: number
  method?: string
  params?: { items?: unknown[] }
  result?: unknown
  error?: { message: string }
}

/**
 * TypeScript 7's language server (`tsc --lsp --stdio`: what an editor runs) over one open consumer file of the
 * project in `dir` (its tsconfig.json): the hover, go-to-definition and completions at an offset of the file, as
 * an editor asks for them. TypeScript 7's API (`typescript/unstable/sync`) has no hover, and its completions throw
 * where the list would need auto imports; the server has both. Used by test/types/completions.test.ts.
 */
export class LanguageServer7 {
  readonly #child: ChildProcessByStdio<Writable, Readable, null>
  readonly #text: string
  readonly #uri: string
  readonly #waiting = new Map<number, (message: Message) => void>()
  #buffer = Buffer.alloc(0)
  #id = 0

  private constructor(dir: string, file: string) {
    this.#text = readFileSync(file, 'utf8')
    this.#uri = pathToFileURL(file).href
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    this.#child = spawn(process.execPath, [tsc, '--lsp', '--stdio'], {
      cwd: dir,
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    this.#child.stdout.on('data', (chunk: Buffer) => this.#read(chunk))
  }

  /** Starts the server on the project in `dir` and opens `file` in it. */
  static async open(dir: string, file: string): Promise<LanguageServer7> {
    const server = new LanguageServer7(dir, file)
    const folder = pathToFileURL(dir).href
    await server.#request('initialize', {
      processId: process.pid,
      rootUri: folder,
      workspaceFolders: [{ uri: folder, name: 'consumer' }],
      capabilities: { textDocument: { hover: { contentFormat: ['markdown'] } } },
    })
    server.#notify('initialized', {})
    server.#notify('textDocument/didOpen', {
      textDocument: { uri: server.#uri, languageId: 'typescript', version: 1, text: server.#text },
    })
    return server
  }

  /** The hover's text at `offset` (the signature block and the doc), or undefined where the server shows none. */
  async hover(offset: number): Promise<string | undefined> {
    const result = (await this.#request('textDocument/hover', this.#at(offset))) as {
      contents?: { value?: string }
    } | null
    return result?.contents?.value
  }

  /** Where go-to-definition at `offset` lands: each place's file and line. */
  async definition(offset: number): Promise<Landing[]> {
    const result = (await this.#request('textDocument/definition', this.#at(offset))) as
      | { uri: string; range: { start: { line: number } } }[]
      | null
    return (result ?? []).map((place) => ({
      file: fileURLToPath(place.uri),
      line: place.range.start.line + 1,
    }))
  }

  /** The labels of the completions at `offset`, and their LSP kinds (5: field, 10: property). */
  async completions(offset: number): Promise<{ label: string; kind?: number }[]> {
    const result = (await this.#request('textDocument/completion', this.#at(offset))) as {
      items?: { label: string; kind?: number }[]
    } | null
    return result?.items ?? []
  }

  /** Stops the server. */
  close(): void {
    this.#child.kill()
  }

  /** The document and the line and character of `offset` in it. */
  #at(offset: number): object {
    const lines = this.#text.slice(0, offset).split('\n')
    return {
      textDocument: { uri: this.#uri },
      position: { line: lines.length - 1, character: lines.at(-1)?.length ?? 0 },
    }
  }

  #send(message: object): void {
    const body = JSON.stringify({ jsonrpc: '2.0', ...message })
    this.#child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  }

  #notify(method: string, params: object): void {
    this.#send({ method, params })
  }

  /** Sends a request; resolves with its result, rejects with the server's error. */
  #request(method: string, params: object): Promise<unknown> {
    const id = ++this.#id
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, (message) =>
        message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result),
      )
      this.#send({ id, method, params })
    })
  }

  /** Splits the server's output into messages: answers to requests, and requests of its own (answered empty). */
  #read(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk])
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n')
      if (end < 0) return
      const length = Number(/Content-Length: (\d+)/i.exec(this.#buffer.subarray(0, end).toString())?.[1])
      if (this.#buffer.length < end + 4 + length) return
      const message = JSON.parse(this.#buffer.subarray(end + 4, end + 4 + length).toString()) as Message
      this.#buffer = this.#buffer.subarray(end + 4 + length)
      if (message.method !== undefined && message.id !== undefined) {
        // The server asks for settings (none here) and to register capabilities.
        const items = message.params?.items
        this.#send({ id: message.id, result: Array.isArray(items) ? items.map(() => null) : null })
      } else if (message.id !== undefined) {
        this.#waiting.get(message.id)?.(message)
        this.#waiting.delete(message.id)
      }
    }
  }
}
