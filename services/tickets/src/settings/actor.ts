/** Who made a change, as events name them: platform user id and display name. */
export interface Actor {
  id: string;
  name: string;
}
