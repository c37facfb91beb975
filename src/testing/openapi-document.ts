import type { MethodRegistry } from './methods.js'

/** An operation whose JSON body follows `schema` (a method of REST 3.0 is a path of its own). */
function operation(summary: string, schema: Record<string, unknown>): Record<string, unknown> {
  return {
    post: {
      summary,
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: { '200': { description: 'The unified answer: { result }' } },
    },
  }
}

/**
 * The emulated portal's OpenAPI document (REST 3.0 describes itself: protocol.md 4): a few methods, among them two
 * the method catalogue lacks (the portal is newer than the documentation), so that `portal-oauth types` has
 * something of its own to type.
 */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.0.0',
    info: { title: 'REST 3.0 of the emulated portal', version: '1.0.0' },
    paths: {
      '/tasks.task.get': operation('A task by its id', {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'integer' }, select: { type: 'array', items: { type: 'string' } } },
      }),
      '/landing.aisite.generate': operation('Generates a site', {
        $ref: '#/components/schemas/AiSiteRequest',
      }),
      '/landing.aisite.status': operation('The generation status of a site', {
        type: 'object',
        required: ['siteId'],
        properties: { siteId: { type: 'integer', description: 'The site' } },
      }),
    },
    components: {
      schemas: {
        AiSiteRequest: {
          type: 'object',
          required: ['prompt'],
          properties: {
            prompt: { type: 'string', description: 'What the site is about' },
            language: { type: 'string', enum: ['en', 'de', 'es'] },
            pages: { type: 'array', items: { $ref: '#/components/schemas/AiSitePage' } },
          },
        },
        AiSitePage: {
          type: 'object',
          properties: { title: { type: 'string' }, draft: { type: 'boolean', nullable: true } },
          additionalProperties: true,
        },
      },
    },
  }
}

/** Registers `rest.documentation.openapi` and its alias `documentation` on v3: the document in `result`. */
export function registerOpenApi(registry: MethodRegistry): void {
  for (const name of ['rest.documentation.openapi', 'documentation'])
    registry.define(name, () => openApiDocument(), { versions: ['v3'] })
}
