/** Events published by the logs service on `events.logs.<guild>.<type>` (payload schemas). */
export const logsEventTypes = [] as const;
