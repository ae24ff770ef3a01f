import type { ApiRoute } from '@guildhall/shared';

/** What one caller got on one route, and what the matrix expects there. */
export interface MatrixCell {
  caller: string;
  status: number;
  /** `401`, `403`, or `allowed` (neither 401 nor 403, and a status the route documents). */
  expected: '401' | '403' | 'allowed';
}

/** One matrix row: a route and every caller's cell. */
export interface MatrixRow {
  route: ApiRoute;
  cells: MatrixCell[];
}

/** True when `status` is what the cell expects; `allowed` means the route's success or one of its documented errors. */
export function cellPasses(route: ApiRoute, cell: MatrixCell): boolean {
  if (cell.expected !== 'allowed') return String(cell.status) === cell.expected;
  if (cell.status === 401 || cell.status === 403) return false;
  return cell.status === route.success.status || route.errors.includes(cell.status);
}

/** The matrix as a text table: one line per route, one column per caller (`status` and `!` where it failed). */
export function matrixTable(rows: MatrixRow[]): string {
  const callers = [...new Set(rows.flatMap((r) => r.cells.map((c) => c.caller)))].sort(
    (a, b) => Number(a === 'right') - Number(b === 'right'),
  );
  const head = `${'auth'.padEnd(8)}${'route'.padEnd(66)}${callers.map((c) => c.padEnd(11)).join('')}`;
  const lines = rows.map((row) => {
    const cols = callers.map((caller) => {
      const cell = row.cells.find((c) => c.caller === caller);
      if (!cell) return '-'.padEnd(11);
      return `${cell.status}${cellPasses(row.route, cell) ? '' : '!'}`.padEnd(11);
    });
    const name = `${row.route.method.toUpperCase()} ${row.route.path}`;
    return `${row.route.auth.padEnd(8)}${name.padEnd(66)}${cols.join('')}`;
  });
  return [head, ...lines].join('\n');
}

/** Human-readable failures of the matrix (empty when every cell passes). */
export function matrixFailures(rows: MatrixRow[]): string[] {
  return rows.flatMap((row) =>
    row.cells
      .filter((cell) => !cellPasses(row.route, cell))
      .map(
        (cell) =>
          `${row.route.id} (${row.route.method.toUpperCase()} ${row.route.path}) as ${cell.caller}: got ${cell.status}, expected ${cell.expected}`,
      ),
  );
}
