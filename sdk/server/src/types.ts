/**
 * Request and answer types of one operation, read from the generated `paths`
 * (src/generated/openapi.ts, made from the service's OpenAPI document at build time).
 */
import type { paths } from './generated/openapi.js';

export type { components, operations, paths } from './generated/openapi.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type PathOf<M extends Method> = { [P in keyof paths]: paths[P][M] extends undefined | never ? never : P }[keyof paths];
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON body an operation takes. */
export type RequestBody<P extends keyof paths, M extends Method> = Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** Its query parameters; a number is accepted wherever the document says string (it is sent as text). */
export type Query<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { query?: infer Q } } ? Loosened<NonNullable<Q>> : never;
type Loosened<Q> = { [K in keyof Q]: string extends Q[K] ? Q[K] | number : Q[K] };

/**
 * An answer whose shape the service's document does not declare yet (links, campaigns, apps,
 * imports): a JSON object, as docs/management-api.md and docs/growth-imports.md describe it.
 */
export type UndocumentedAnswer = { [key: string]: unknown };

type SuccessBody<R> = { [S in keyof R]: S extends 200 | 201 ? (R[S] extends { content: { 'application/json': infer J } } ? J : never) : never }[keyof R];

/** The JSON body of the operation's success answer (200 or 201). */
export type Answer<P extends keyof paths, M extends Method> = Operation<P, M> extends { responses: infer R } ? ([SuccessBody<R>] extends [never] ? UndocumentedAnswer : SuccessBody<R>) : never;
