import type { z } from 'zod';
import type { EventBus } from './bus/eventBus';
import type { RpcSpec } from './contract/rpc';
import { EncodedJson } from './encodedJson';
import { badGateway, HttpProblem } from './http/problem';
import { parseInput } from './http/validate';
import { createLogger, type Logger } from './logger';

/** Where requesters log the replies they refuse (`askRpc`; the line carries the request id). */
const requesterLog = createLogger('rpc');

/** Replies are checked against their schema before they are sent everywhere but in production (tests, dev). */
const CHECK_REPLIES = process.env.NODE_ENV !== 'production';

/**
 * Answers `spec.subject` (`EventBus.reply`, one queue group per subject) with `handler`, which only ever gets a
 * request that matches `spec.request` (parsed: strict objects, snowflakes, bounded arrays; no MongoDB operator object
 * gets through). A request that does not match is answered with a 400 problem (`validation_failed`, `detail` naming
 * the first bad field, e.g. `Invalid body.guild: ...`), logged at warn with the subject, and `handler` is not called.
 * Outside production the answer is checked against `spec.reply` too (an `EncodedJson` answer decoded for it): one
 * that does not match is logged at error and answered as a 500 problem, so a responder drifting from its contract
 * fails its tests. Problems `handler` throws travel back as `EventBus.reply` sends them.
 */
export function answerRpc<Req extends z.ZodType, Res extends z.ZodType>(
  bus: EventBus,
  spec: RpcSpec<Req, Res>,
  handler: (request: z.infer<Req>) => Promise<z.infer<Res> | EncodedJson<z.infer<Res>>>,
  logger: Logger,
) {
  return bus.reply<unknown, z.infer<Res>>(spec.subject, async (raw) => {
    let request: z.infer<Req>;
    try {
      request = parseInput('body', spec.request, raw);
    } catch (err) {
      logger.warn({ subject: spec.subject, detail: (err as HttpProblem).detail }, 'malformed RPC request refused');
      throw err;
    }
    const answer = await handler(request);
    if (CHECK_REPLIES) {
      const checked = spec.reply.safeParse(answer instanceof EncodedJson ? JSON.parse(answer.json) : answer);
      if (!checked.success) {
        logger.error({ subject: spec.subject, issues: checked.error.issues }, 'RPC answer does not match its schema');
        throw new HttpProblem(500, `The answer to ${spec.subject} does not match its schema`, {}, 'invalid_rpc_reply');
      }
    }
    return answer;
  });
}

/** The 502 problem for a reply that does not match `spec.reply`, logged at error with the subject and the issues. */
function malformedReply(spec: RpcSpec<z.ZodType, z.ZodType>, error: z.ZodError): HttpProblem {
  const first = error.issues[0];
  const where = first?.path.length ? first.path.join('.') : '(root)';
  requesterLog.error({ subject: spec.subject, issues: error.issues }, 'malformed RPC reply refused');
  return badGateway(
    `${spec.subject} answered a malformed reply (${where}: ${first?.message ?? 'invalid'})`,
    {},
    'invalid_rpc_reply',
  );
}

/**
 * Asks `spec.subject` (`EventBus.request`) with `request`, waiting at most `timeoutMs` (ms), and resolves the reply
 * parsed by `spec.reply`. Throws what `EventBus.request` throws (503 `unavailable` when no responder answers in
 * time or the connection is down; a problem the peer answered, e.g. a 400 or 404, as is), and a 502 problem
 * `invalid_rpc_reply` naming the first bad field when the reply does not match its schema (logged at error by the
 * `rpc` logger).
 */
export async function askRpc<Req extends z.ZodType, Res extends z.ZodType>(
  bus: EventBus,
  spec: RpcSpec<Req, Res>,
  request: z.input<Req>,
  timeoutMs: number,
): Promise<z.infer<Res>> {
  const parsed = spec.reply.safeParse(await bus.request<unknown>(spec.subject, request, timeoutMs));
  if (!parsed.success) throw malformedReply(spec, parsed.error);
  return parsed.data;
}

/**
 * `askRpc` for an asker that passes the reply on as JSON text (`EventBus.requestEncoded`): the reply is checked
 * against `spec.reply` as `askRpc` does (so no key outside the schema reaches the text spliced into an answer), then
 * handed back as the text the peer sent, not encoded again. Errors as `askRpc`.
 */
export async function askRpcEncoded<Req extends z.ZodType, Res extends z.ZodType>(
  bus: EventBus,
  spec: RpcSpec<Req, Res>,
  request: z.input<Req>,
  timeoutMs: number,
): Promise<EncodedJson<z.infer<Res>>> {
  const answer = await bus.requestEncoded<z.infer<Res>>(spec.subject, request, timeoutMs);
  const parsed = spec.reply.safeParse(JSON.parse(answer.json));
  if (!parsed.success) throw malformedReply(spec, parsed.error);
  return answer;
}
