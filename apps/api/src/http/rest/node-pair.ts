/**
 * The Node-style request and response trpc-to-openapi's handler reads and writes, as thin views of
 * Fastify's, in place of the library's own Fastify adapter. That adapter, on every request, binds nine
 * functions onto Fastify's request and reply and redefines `reply.statusCode` (so every reply object
 * gets a shape of its own and Fastify's hot paths go megamorphic), and leaves out `writableEnded`:
 * the AbortSignal the handler wires to the response's "close" then aborts after every answer, which
 * builds a DOMException with a stack trace per request (docs/performance.md). Classes with getters keep
 * one shape for all requests and nothing is allocated but the two views.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { EventEmitter } from "node:events";

type Listener = (...args: unknown[]) => void;

/** The events of the view are those of the raw Node object underneath. */
abstract class RawEvents {
  constructor(protected readonly raw: EventEmitter) {}
  once(event: string, listener: Listener): this {
    this.raw.once(event, listener);
    return this;
  }
  on(event: string, listener: Listener): this {
    this.raw.on(event, listener);
    return this;
  }
  off(event: string, listener: Listener): this {
    this.raw.off(event, listener);
    return this;
  }
  removeListener(event: string, listener: Listener): this {
    this.raw.removeListener(event, listener);
    return this;
  }
  emit(event: string, ...args: unknown[]): boolean {
    return this.raw.emit(event, ...args);
  }
}

/** What the handler reads of a request (method, url, headers, body, query, socket, abort events). */
export class RestRequest extends RawEvents {
  constructor(readonly fastify: FastifyRequest) {
    super(fastify.raw);
  }
  get method(): string {
    return this.fastify.method;
  }
  get url(): string {
    return this.fastify.url;
  }
  get headers(): FastifyRequest["headers"] {
    return this.fastify.headers;
  }
  get body(): unknown {
    return this.fastify.body;
  }
  set body(value: unknown) {
    this.fastify.body = value;
  }
  get query(): unknown {
    return this.fastify.query;
  }
  set query(value: unknown) {
    this.fastify.query = value;
  }
  get socket(): FastifyRequest["socket"] {
    return this.fastify.raw.socket;
  }
  get readableEnded(): boolean {
    return this.fastify.raw.readableEnded;
  }
  destroy(error?: Error): void {
    this.fastify.raw.destroy(error);
  }
}

/** What the handler does to a response: status, headers, one JSON body; plus the events of the raw one. */
export class RestResponse extends RawEvents {
  constructor(readonly reply: FastifyReply) {
    super(reply.raw);
  }
  get statusCode(): number {
    return this.reply.raw.statusCode;
  }
  set statusCode(status: number) {
    void this.reply.code(status);
  }
  setHeader(name: string, value: string | number | readonly string[]): void {
    void this.reply.header(name, value);
  }
  end(body?: string): void {
    if (!this.reply.sent) void this.reply.send(body);
  }
  get writableEnded(): boolean {
    return this.reply.raw.writableEnded;
  }
  get headersSent(): boolean {
    return this.reply.raw.headersSent;
  }
  get socket(): FastifyReply["raw"]["socket"] {
    return this.reply.raw.socket;
  }
}
