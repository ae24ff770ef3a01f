import { createServer, type Server, type Socket } from 'node:net';
import { MAX_MESSAGE_SIZE } from './commands/admin';
import type { CommandContext, ServerInfo } from './commands/context';
import { runCommand } from './commands/index';
import type { CursorManager } from './cursors';
import type { Logger, Storage } from './storage/engine';
import type { Doc } from './values';
import { decodeMessage, encodeMsg, encodeReply, OpCode, type Request, WireError } from './wire';

/** Accepts TCP connections and runs each connection's requests in order. */
export class WireServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private nextConnectionId = 1;
  private nextRequestId = 1;
  private totalCreated = 0;
  info: ServerInfo;

  constructor(
    private readonly storage: Storage,
    private readonly cursors: CursorManager,
    private readonly logger: Logger,
  ) {
    this.server = createServer((s) => this.accept(s));
    this.info = {
      host: '127.0.0.1',
      port: 0,
      startedAt: Date.now(),
      connections: () => ({ current: this.sockets.size, totalCreated: this.totalCreated }),
    };
  }

  /** Starts listening; resolves with the bound port. */
  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const addr = this.server.address();
        const bound = typeof addr === 'object' && addr ? addr.port : port;
        this.info = { ...this.info, host, port: bound };
        resolve(bound);
      });
    });
  }

  private accept(socket: Socket): void {
    const connectionId = this.nextConnectionId++;
    this.totalCreated++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const ctxBase = {
      storage: this.storage,
      cursors: this.cursors,
      connectionId,
      server: this.info,
      logger: this.logger,
    };
    let chain: Promise<void> = Promise.resolve();
    const fail = (err: Error) => {
      this.logger.warn(`embedded-mongo: closing connection ${connectionId}: ${err.message}`);
      socket.destroy();
    };
    let chunks: Buffer[] = [];
    let buffered = 0;
    let needed = 4;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      buffered += chunk.length;
      if (buffered < needed) return;
      let buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      while (buf.length >= 4) {
        const len = buf.readInt32LE(0);
        if (len < 16 || len > MAX_MESSAGE_SIZE) {
          fail(new WireError(`invalid message length ${len}`));
          return;
        }
        if (buf.length < len) break;
        let req: Request;
        try {
          req = decodeMessage(buf.subarray(0, len));
        } catch (err) {
          fail(err as Error);
          return;
        }
        buf = buf.subarray(len);
        chain = chain.then(() => this.handle(socket, req, ctxBase)).catch(fail);
      }
      chunks = buf.length ? [buf] : [];
      buffered = buf.length;
      needed = buf.length >= 4 ? buf.readInt32LE(0) : 4;
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }

  private async handle(socket: Socket, req: Request, base: Omit<CommandContext, 'db'>): Promise<void> {
    const db = typeof req.command.$db === 'string' ? req.command.$db : 'admin';
    const reply: Doc = this.storage.inflate(await runCommand(req.command, { ...base, db }));
    if (req.moreToCome || socket.destroyed) return;
    const requestId = this.nextRequestId++ & 0x7fffffff;
    const out =
      req.opCode === OpCode.QUERY
        ? encodeReply(requestId, req.requestId, reply)
        : encodeMsg(requestId, req.requestId, reply);
    socket.write(out);
  }

  /** Stops accepting, closes every connection. */
  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
