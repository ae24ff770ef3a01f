import type { ReactNode } from 'react';

/** A table that scrolls sideways on narrow screens: one header cell per `columns` entry, `children` as body rows. */
export function Table({
  columns,
  className,
  children,
}: {
  columns: string[];
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="scroll">
      <table className={className ? `table ${className}` : 'table'}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
