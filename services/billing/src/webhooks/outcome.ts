/** Result of processing one notification: its final status and the guild it applied to (if any). */
export interface Outcome {
  status: 'processed' | 'ignored' | 'unmapped' | 'stale';
  guild: string | null;
}
