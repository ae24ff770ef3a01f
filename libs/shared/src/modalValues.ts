/** A component of a submitted modal as the platform sends it: text inputs inside action rows or labels. */
interface SubmittedComponent {
  custom_id?: string;
  value?: string;
  components?: unknown[];
  component?: unknown;
}

/**
 * The values of a submitted modal's text inputs by custom id (INTERACTION_CREATE type 5, `data.components`), read in
 * both layouts the platform sends: inputs inside action rows (`components[].components[]`) and inside labels
 * (`components[].component`), at any depth. Inputs the member left empty answer ''.
 */
export function modalValues(components: readonly unknown[]): Map<string, string> {
  const values = new Map<string, string>();
  const walk = (list: readonly unknown[]) => {
    for (const c of list as SubmittedComponent[]) {
      if (typeof c?.custom_id === 'string' && typeof c.value === 'string') values.set(c.custom_id, c.value);
      walk([...(c?.components ?? []), ...(c?.component ? [c.component] : [])]);
    }
  };
  walk(components);
  return values;
}
