/**
 * An answer already encoded as JSON (`json`: the text of a `T`), sent as it is: an HTTP route handler or a bus
 * responder (`EventBus.reply`) returns it instead of the value when it has the text anyway (a cached answer, an answer
 * whose size was checked), so the value is not encoded again.
 */
export class EncodedJson<T> {
  /** Only marks which answer `json` encodes (never set). */
  declare readonly encodes?: T;

  constructor(readonly json: string) {}
}
