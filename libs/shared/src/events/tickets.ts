/** Events published by the tickets service on `events.tickets.<guild>.<type>` (payload schemas). */
export const ticketsEventTypes = [] as const;
