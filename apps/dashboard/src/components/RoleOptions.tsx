/** The `<option>`s of a role picker, one per role, labelled `@name`, valued by role id. */
export function RoleOptions({ roles }: { roles: ReadonlyArray<{ id: string; name: string }> }) {
  return (
    <>
      {roles.map((r) => (
        <option key={r.id} value={r.id}>
          @{r.name}
        </option>
      ))}
    </>
  );
}
