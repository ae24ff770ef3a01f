/** A notification whose signature checked out, ready to be stored. */
export interface VerifiedNotification {
  eventId: string;
  type: string;
  /** Provider time of the notification (Stripe `created`, App Store `signedDate`, Play `eventTimeMillis`). */
  eventAt: Date;
  payload: unknown;
  mapKey: string | null;
}
