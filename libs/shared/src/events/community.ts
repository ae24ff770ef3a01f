/** Events published by the community service on `events.community.<guild>.<type>` (payload schemas). */
export const communityEventTypes = [] as const;
