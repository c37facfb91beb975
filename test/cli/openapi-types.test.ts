import { describe, expect, it } from 'vitest'
import { openApiMethods, schemaType } from '../../src/cli/openapi-types.js'

describe("a portal's OpenAPI schemas as TypeScript types", () => {
  it('follows local $refs, and types a cycle unknown instead of looping', () => {
    const document = {
      components: {
        schemas: {
          Node: {
            type: 'object',
            properties: { id: { type: 'integer' }, parent: { $ref: '#/components/schemas/Node' } },
          },
        },
      },
    }
    const typed = schemaType(document, { $ref: '#/components/schemas/Node' })
    expect(typed.startsWith('{ id?: number; parent?: { id?: number; parent?: ')).toBe(true)
    expect(typed).toContain('unknown')
  })

  it('enums, unions, intersections, nullable values, arrays and open objects', () => {
    expect(schemaType({}, { type: 'string', enum: ['a', "b'c"] })).toBe("'a' | 'b\\'c'")
    expect(schemaType({}, { oneOf: [{ type: 'integer' }, { type: 'string' }] })).toBe('number | string')
    expect(schemaType({}, { allOf: [{ type: 'object' }, { properties: { x: { type: 'boolean' } } }] })).toBe(
      '(Record<string, unknown>) & ({ x?: boolean })',
    )
    expect(schemaType({}, { type: 'number', nullable: true })).toBe('number | null')
    expect(schemaType({}, { type: 'array', items: { type: 'string', enum: ['x', 'y'] } })).toBe(
      "readonly ('x' | 'y')[]",
    )
    expect(
      schemaType({}, { type: 'object', properties: { 'a-b': { type: 'string' } }, required: ['a-b'] }),
    ).toBe("{ 'a-b': string }")
  })

  it('reads each path as a method, its JSON body as the parameters', () => {
    const methods = openApiMethods({
      paths: {
        '/rest/api/b.method': {
          post: {
            summary: 'B',
            requestBody: {
              content: {
                'application/json': { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
              },
            },
          },
        },
        '/a.method': { get: {} },
        '/not a method': { post: {} },
      },
    })
    expect(methods).toEqual([
      { method: 'a.method', summary: '', params: 'Record<string, unknown>' },
      { method: 'b.method', summary: 'B', params: '{ n?: number }' },
    ])
  })
})
