/** Events published by the billing service on `events.billing.<guild>.<type>` (payload schemas). */
export const billingEventTypes = [] as const;
