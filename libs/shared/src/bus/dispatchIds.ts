/**
 * The `Nats-Msg-Id` the bridge gives a platform dispatch: `<shard>:<session id>:<sequence>`. A RESUME keeps the
 * session and replays missed events with their original sequence numbers, so a replayed event gets the id it had the
 * first time and JetStream (10-minute duplicate window) stores it once, also across a bridge restart (the session is
 * persisted). A new session (a new IDENTIFY) starts the sequence again under another session id.
 */
export function dispatchMsgId(shardId: number, sessionId: string, sequence: number): string {
  return `${shardId}:${sessionId}:${sequence}`;
}

/**
 * The gateway session a bus message id names when it is one the bridge gave (`dispatchMsgId`); null for other ids
 * (a replayed file's line hash, a test's id, none).
 */
export function dispatchSessionOf(msgId: string | undefined): string | null {
  const match = msgId ? /^\d+:([^:]+):\d+$/.exec(msgId) : null;
  return match ? match[1] : null;
}
