/** Events published by the moderation service on `events.moderation.<guild>.<type>` (payload schemas). */
export const moderationEventTypes = [] as const;
