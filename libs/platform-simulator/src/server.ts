import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIUser } from 'discord-api-types/v10';
import express, { type Request, type Response } from 'express';
import { type ParsedBody, parseBody } from './body';
import { SimulatorClock } from './clock';
import type { Handler, Reply, RequestContext } from './context';
import { DiscordError, errors, invalidFormBody } from './errors';
import { notModelled } from './fallback';
import { guildCreateData } from './gateway/guildCreate';
import { GATEWAY_PATH, SimulatorGateway } from './gateway/server';
import { autocomplete, runCommand, submitModal, useComponent } from './interactionCreate';
import { checkAuditReason } from './limits';
import {
  defaultSpecPath,
  describeProblems,
  type FieldProblem,
  loadSpec,
  OpenApiValidator,
  type Operation,
} from './openapiValidator';
import type { FakePlatform, FakePlatformOptions } from './platform';
import { rateLimitedAnswer, rateLimitHeaders } from './rateLimits';
import { routes } from './routes';
import { authorize, oauthTokenRoutes } from './routes/oauth';
import { Secrets } from './secrets';
import { buildGuildState, fullMember } from './seed';
import { type OAuthGrant, PlatformState } from './state';
import type { InjectedError, RecordedCall, SeedUser } from './types';
import { type UserCall, userActions } from './userActions';

const API_PREFIX = '/api/v10';

interface Injection {
  method: string;
  route: string | RegExp;
  error?: InjectedError;
  rateLimit?: { retryAfter: number; global: boolean };
  /** The call is carried out, then answered 502 (its answer lost on the way back, see `loseNextAnswer`). */
  loseAnswer?: boolean;
  /** The call is carried out when it arrives; its answer waits for this (see `holdNextAnswer`). */
  holdAnswer?: { arrived: () => void; released: Promise<void> };
}

/** What Discord's edge answers when the API's answer does not reach it (the work may still have been done). */
const BAD_GATEWAY: Reply = { status: 502, body: { message: '502: Bad Gateway', code: 0 } };

function routeMatches(
  method: string,
  route: string | RegExp,
  call: { method: string; path: string; route: string },
): boolean {
  if (method.toUpperCase() !== call.method) return false;
  return typeof route === 'string' ? route === call.route || route === call.path : route.test(call.path);
}

/** Decodes each path segment (clients percent-encode `@me`, `@original`, emoji names). */
function decodePath(raw: string): string {
  return raw
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment).replaceAll('/', '%2F');
      } catch {
        return segment;
      }
    })
    .join('/');
}

/** What the request's Authorization header proves, or the 401 Discord answers. */
function authenticate(
  req: Request,
  operation: Operation | undefined,
  state: PlatformState,
  invalidBotToken?: string,
): OAuthGrant | undefined {
  const security = operation?.security ?? [];
  const optional = security.length === 0 || security.some((s) => Object.keys(s).length === 0);
  const header = req.get('authorization') ?? '';
  const [scheme, token] = header.split(' ', 2);
  if (scheme === 'Bot' && token && token !== invalidBotToken && (optional || security.some((s) => 'BotToken' in s)))
    return undefined;
  if (scheme === 'Bearer' && token) {
    const grant = state.accessTokens.get(token);
    if (grant && (optional || security.some((s) => 'OAuth2' in s))) return grant;
  }
  if (!header && optional) return undefined;
  throw errors.unauthorized();
}

/**
 * Starts the fake Discord REST API v10 on 127.0.0.1: seeded guild state, Discord's error JSON and rate-limit
 * headers, every call recorded and checked against Discord's OpenAPI description (see `FakePlatform`).
 * Rejects when the OpenAPI file cannot be found or the port is taken.
 */
export async function startFakePlatform(opts: FakePlatformOptions = {}): Promise<FakePlatform> {
  const doc = loadSpec(opts.specPath ?? defaultSpecPath());
  const validator = new OpenApiValidator(doc);
  const clock = new SimulatorClock(opts.clock);
  const state = new PlatformState(clock.snowflake(), clock, new Secrets(opts.secretSeed), opts.botUserId);
  const calls: RecordedCall[] = [];
  const violations: string[] = [];
  let injections: Injection[] = [];

  const takeInjection = (call: { method: string; path: string; route: string }) => {
    const index = injections.findIndex((i) => routeMatches(i.method, i.route, call));
    return index === -1 ? undefined : injections.splice(index, 1)[0];
  };

  const send = (
    res: Response,
    call: Omit<RecordedCall, 'status' | 'at'>,
    reply: Reply,
    headers: Record<string, string>,
  ) => {
    calls.push({ ...call, status: reply.status, at: clock.now() });
    res.set(headers);
    if (reply.body === undefined || reply.status === 204) res.status(reply.status).end();
    else res.status(reply.status).json(reply.body);
  };

  const handleApi = async (req: Request, res: Response) => {
    const url = new URL(req.originalUrl, 'http://fake.local');
    const path = decodePath(url.pathname.slice(API_PREFIX.length) || '/');
    const method = req.method.toUpperCase();
    const query = Object.fromEntries(url.searchParams);
    const reasonHeader = req.get('x-audit-log-reason');
    const reason = reasonHeader === undefined ? undefined : decodeURIComponent(reasonHeader);
    const call = {
      method,
      path,
      route: path,
      query,
      body: undefined as unknown,
      ...(reason !== undefined ? { reason } : {}),
    };
    let headers: Record<string, string> = {};
    try {
      const parsed = await parseBody(req.body as Buffer | undefined, req.get('content-type'));
      call.body = parsed.recorded;
      const special = oauthTokenRoutes[`${method} ${path}`];
      if (special) {
        call.route = path;
        const reply = special({ ...parsed, header: req.get('authorization') }, state);
        return send(res, call, reply, { 'Cache-Control': 'no-store' });
      }
      const match = validator.match(method, path);
      if (match.kind === 'unknown-route') {
        violations.push(`${method} ${path}: no such route in Discord's OpenAPI description`);
        return send(res, call, { status: 404, body: errors.notFound().toJSON() }, {});
      }
      if (match.kind === 'unknown-method') {
        call.route = match.route;
        violations.push(
          `${method} ${path}: ${match.route} has no ${method} operation in Discord's OpenAPI description`,
        );
        return send(res, call, { status: 405, body: errors.methodNotAllowed().toJSON() }, {});
      }
      const { operation, params } = match;
      call.route = operation.route;
      headers = rateLimitHeaders(method, operation.route);
      const describe = `${method} ${path} (${operation.operationId})`;
      const problems = [
        ...validator.validateParameters(operation, params, query),
        ...validateBody(operation, parsed, describe),
      ];
      if (problems.length) {
        violations.push(`${describe}: request does not match the OpenAPI description: ${describeProblems(problems)}`);
        throw invalidFormBody(problems);
      }
      const bearer = authenticate(req, operation, state, opts.invalidBotToken);
      const injected = takeInjection(call);
      if (injected?.rateLimit) {
        const answer = rateLimitedAnswer(
          method,
          operation.route,
          injected.rateLimit.retryAfter,
          injected.rateLimit.global,
        );
        return send(res, call, { status: 429, body: answer.body }, answer.headers);
      }
      if (injected?.error) {
        const { status, code, message } = injected.error;
        return send(res, call, { status, body: { message, code } }, headers);
      }
      const reply = runOperation(operation, params, query, parsed, { path, reason, bearer, actor: state.botUser });
      if (injected?.holdAnswer) {
        injected.holdAnswer.arrived();
        await injected.holdAnswer.released;
      }
      return send(res, call, injected?.loseAnswer ? BAD_GATEWAY : reply, headers);
    } catch (err) {
      if (err instanceof DiscordError) return send(res, call, { status: err.status, body: err.toJSON() }, headers);
      violations.push(`${method} ${path}: the fake platform failed: ${(err as Error).stack ?? err}`);
      return send(res, call, { status: 500, body: { message: '500: Internal Server Error', code: 0 } }, headers);
    }
  };

  /** Runs the modelled handler of an operation as `who.actor`; 501 for an operation it does not model. */
  const runOperation = (
    operation: Operation,
    params: Record<string, string>,
    query: Record<string, string>,
    parsed: ParsedBody,
    who: { path: string; reason?: string; bearer?: OAuthGrant; actor: APIUser },
  ): Reply => {
    checkAuditReason(who.reason);
    const body = (parsed.json && typeof parsed.json === 'object' ? parsed.json : parsed.fields) as Record<
      string,
      unknown
    >;
    const ctx: RequestContext = {
      method: operation.method.toUpperCase(),
      path: who.path,
      route: operation.route,
      params,
      query,
      body,
      files: parsed.files,
      reason: who.reason,
      bearer: who.bearer,
      state,
      actor: who.actor,
    };
    const handler: Handler | undefined = routes[`${ctx.method} ${operation.route}`];
    if (!handler) throw notModelled(state, ctx.method, operation.route);
    return handler(ctx);
  };

  /**
   * Performs a call as a member (`actAsUser`): matched and validated like a REST request, with that user's
   * permissions, as author and as audit `user_id`; not recorded in `calls`. Resolves the reply body; rejects with
   * the `DiscordError` Discord would answer.
   */
  const actAs = async (userId: string, call: UserCall): Promise<unknown> => {
    const actor = state.user(userId);
    const url = new URL(call.path, 'http://fake.local');
    const path = decodePath(url.pathname);
    const match = validator.match(call.method, path);
    if (match.kind !== 'ok') throw errors.notFound();
    const json = call.body ?? {};
    const problems = validator.validateBody(match.operation, 'application/json', json);
    if (problems.length) throw invalidFormBody(problems);
    const files = (call.files ?? []).map((f, i) => ({
      field: `files[${i}]`,
      filename: f.name,
      contentType: f.contentType,
      size: f.data.length,
      data: f.data,
    }));
    const parsed: ParsedBody = { mediaType: 'application/json', recorded: json, json, fields: {}, files };
    const reply = runOperation(match.operation, match.params, Object.fromEntries(url.searchParams), parsed, {
      path,
      reason: call.reason,
      actor,
    });
    return reply.body;
  };

  const validateBody = (operation: Operation, parsed: ParsedBody, describe: string): FieldProblem[] => {
    const declared = operation.requestBody?.content ?? {};
    if (!parsed.mediaType)
      return declared['application/json'] ? validator.validateBody(operation, 'application/json', {}) : [];
    if (!operation.requestBody) {
      violations.push(`${describe}: sends a body but the operation takes none`);
      return [];
    }
    if (!declared[parsed.mediaType]) {
      violations.push(
        `${describe}: Content-Type ${parsed.mediaType} is not accepted (accepts ${Object.keys(declared).join(', ')})`,
      );
      return [];
    }
    if (parsed.mediaType === 'application/json')
      return validator.validateBody(operation, 'application/json', parsed.json);
    if (parsed.mediaType === 'multipart/form-data') {
      if (parsed.json !== undefined) return validator.validateBody(operation, 'application/json', parsed.json);
      const asObject = { ...parsed.fields, ...Object.fromEntries(parsed.files.map((f) => [f.field, f.filename])) };
      return validator.validateBody(operation, 'multipart/form-data', asObject);
    }
    return [];
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(express.raw({ type: () => true, limit: '50mb' }));
  app.get(['/oauth2/authorize', '/api/oauth2/authorize', `${API_PREFIX}/oauth2/authorize`], (req, res) => {
    const url = new URL(req.originalUrl, 'http://fake.local');
    const query = Object.fromEntries(url.searchParams);
    const outcome = authorize(query, state);
    calls.push({
      method: 'GET',
      path: '/oauth2/authorize',
      route: '/oauth2/authorize',
      query,
      body: undefined,
      status: outcome.status,
      at: clock.now(),
    });
    if (outcome.location) res.redirect(302, outcome.location);
    else res.status(outcome.status).json(outcome.body);
  });
  app.get('/attachments/:channel/:attachment/:filename', state.cdn.serveAttachment);
  app.get(
    ['/avatars/*path', '/embed/avatars/*path', '/emojis/*path', '/stickers/*path', '/icons/*path'],
    state.cdn.serveImage,
  );
  app.use((req, res) => {
    if (req.path === API_PREFIX || req.path.startsWith(`${API_PREFIX}/`)) return void handleApi(req, res);
    violations.push(`${req.method} ${req.originalUrl}: not under ${API_PREFIX}`);
    calls.push({
      method: req.method,
      path: req.path,
      route: req.path,
      query: {},
      body: undefined,
      status: 404,
      at: clock.now(),
    });
    res.status(404).json(errors.notFound().toJSON());
  });

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port ?? 0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  state.cdn.base = opts.cdnOrigin ?? origin;
  const gateway = new SimulatorGateway(
    server,
    state,
    `ws://127.0.0.1:${port}${GATEWAY_PATH}`,
    opts.gateway ?? {},
    (token) => token !== opts.invalidBotToken,
  );
  state.gatewayBot = () => gateway.botInfo();

  const platform: FakePlatform = {
    url: `${origin}/api`,
    origin,
    cdnUrl: origin,
    gatewayUrl: gateway.url,
    gateway,
    actAsUser: (userId) =>
      userActions((call) => actAs(userId, call), {
        useComponent: async (channelId, messageId, customId, values) =>
          useComponent(state, state.user(userId), channelId, messageId, customId, values),
        submitModal: async (customId, values) => submitModal(state, state.user(userId), customId, values),
        runCommand: async (guildId, channelId, name, run) =>
          runCommand(state, state.user(userId), guildId, channelId, name, run),
        autocomplete: async (guildId, channelId, name, run) =>
          autocomplete(state, state.user(userId), guildId, channelId, name, run),
      }),
    interactionResponse(interactionId) {
      const token = [...state.interactionOrigins].find(([, origin]) => origin.id === interactionId)?.[0];
      return token === undefined ? undefined : state.interactionOriginals.get(token);
    },
    botUserId: state.botUser.id,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    calls,
    violations,
    unmodelled: state.unmodelled,
    seedGuild(seed, options = {}) {
      state.guilds.set(seed.id, buildGuildState(seed, state));
      if (options.announce ?? true) gateway.guildJoined(seed.id);
    },
    dispatch(guildId, t, d) {
      state.emit(guildId, t, d);
    },
    onDispatch: (listener) => state.onDispatch(listener),
    seedUser(user: SeedUser) {
      const { guilds: _guilds, scope: _scope, ...fields } = user;
      state.oauthUsers.set(user.id, user);
      if (!state.users.has(user.id))
        state.users.set(user.id, {
          username: `user${user.id.slice(-4)}`,
          discriminator: '0',
          global_name: null,
          avatar: null,
          ...fields,
        });
      state.lastOAuthUserId = user.id;
      const grant: OAuthGrant = { userId: user.id, scope: user.scope ?? 'identify guilds' };
      const code = randomBytes(15).toString('hex');
      const accessToken = randomBytes(15).toString('hex');
      state.codes.set(code, grant);
      state.accessTokens.set(accessToken, grant);
      return { accessToken, code };
    },
    guild: (id) => state.guilds.get(id),
    guildCreate: (guildId, intents, largeThreshold = 50) =>
      guildCreateData(state, state.guild(guildId), intents, largeThreshold),
    memberJoins(guildId, seed) {
      const guild = state.guild(guildId);
      const member = fullMember(seed, clock.now());
      guild.members.set(member.user.id, member);
      if (!state.users.has(member.user.id)) state.users.set(member.user.id, member.user);
      state.emit(guild.id, 'GUILD_MEMBER_ADD', { ...member, guild_id: guild.id });
      return member;
    },
    makeUnreachable(url) {
      state.cdn.makeUnreachable(url);
    },
    images: {
      served: () => state.cdn.servedImages(),
      hold: (after) => state.cdn.holdImages(after),
      release: () => state.cdn.releaseImages(),
    },
    closeDms(userId) {
      state.closedDms.add(userId);
    },
    dmsTo(userId) {
      const dm = [...state.dmChannels.values()].find((c) => c.recipients?.[0]?.id === userId);
      return dm ? [...(state.dmMessages.get(dm.id) ?? [])] : [];
    },
    callsTo: (method, route) => calls.filter((c) => routeMatches(method, route, c)),
    failNext(method, route, error) {
      injections.push({ method, route, error });
    },
    rateLimitNext(method, route, retryAfterSeconds, global = false) {
      injections.push({ method, route, rateLimit: { retryAfter: retryAfterSeconds, global } });
    },
    loseNextAnswer(method, route) {
      injections.push({ method, route, loseAnswer: true });
    },
    holdNextAnswer(method, route) {
      let arrived = () => {};
      let release = () => {};
      const reached = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      injections.push({ method, route, holdAnswer: { arrived, released } });
      return { arrived: reached, release };
    },
    reset(options = {}) {
      calls.length = 0;
      violations.length = 0;
      injections = [];
      if (options.resetData) state.clear();
    },
    assertNoViolations() {
      if (violations.length)
        throw new Error(
          `Fake platform: ${violations.length} call(s) did not match Discord's OpenAPI description:\n- ${violations.join('\n- ')}`,
        );
    },
    close: async () => {
      await gateway.close();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      });
    },
  };
  return platform;
}
