/**
 * A TypeBox schema as MCP clients see it: plain JSON Schema, which they compile (the SDK's
 * client with ajv) to check arguments and structured results.
 */
import type { TSchema } from '@sinclair/typebox';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

type Node = Record<string, unknown>;

/**
 * Each `error` text (the house's custom message) becomes the `description` a model reads when
 * there is none. Two readings of Elysia's builders are dropped: t.Integer's numeric string (for
 * query strings; these are JSON numbers) and t.Nullable's `nullable` (OpenAPI 3.0, refused by ajv).
 */
export function jsonSchema(schema: TSchema): Tool['inputSchema'] {
  return JSON.parse(JSON.stringify(schema), (key, value) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    let node = value as Node;
    if (key !== '' && typeof node.error === 'string') {
      const { error, ...rest } = node;
      node = rest.description === undefined ? { ...rest, description: error } : rest;
    }
    if ('nullable' in node) {
      const { nullable: _, ...rest } = node;
      node = rest;
    }
    return withoutNumericString(node);
  }) as Tool['inputSchema'];
}

const isNumericString = (member: Node) => member.type === 'string' && (member.format === 'integer' || member.format === 'numeric');

function withoutNumericString(node: Node): Node {
  if (!Array.isArray(node.anyOf)) return node;
  const members = node.anyOf as Node[];
  const numbers = members.filter((member) => !isNumericString(member));
  if (numbers.length !== 1 || numbers.length === members.length) return node;
  const { anyOf: _, ...rest } = node;
  return { ...rest, ...numbers[0] };
}
