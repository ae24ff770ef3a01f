/**
 * Result rows of the benchmark: each `{section, name, value, unit, target?, pass?, note?}`; printed as an aligned
 * table with PASS/FAIL for rows that have a target, and written as JSON.
 */
const fs = require('node:fs');
const path = require('node:path');

/** Collects rows; `add` returns the row. `target` is `{op: '>=' | '<=' | '<', value}` (same unit as the row). */
class Results {
  constructor() {
    this.rows = [];
    this.details = {};
  }

  add(section, name, value, unit, target, note) {
    const row = { section, name, value: round(value), unit };
    if (target) {
      row.target = `${target.op} ${target.value} ${unit}`;
      row.pass = Number.isFinite(value) && compare(value, target.op, target.value);
    }
    if (note) row.note = note;
    this.rows.push(row);
    return row;
  }

  /** The aligned text table (section, measure, value, target, result). */
  table() {
    const header = ['Section', 'Measure', 'Value', 'Target', 'Result'];
    const lines = this.rows.map((r) => [
      r.section,
      r.name,
      `${fmt(r.value)} ${r.unit}`,
      r.target ?? '',
      r.pass === undefined ? '' : r.pass ? 'PASS' : 'FAIL',
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
    const row = (cells) => cells.map((c, i) => (i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
    return [row(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(row)].join('\n');
  }

  /**
   * The same table as Markdown (pipes in cells escaped), for bench/results/latest.md; rows with a ceiling carry it
   * in their `note`.
   */
  markdown() {
    const cell = (s) => String(s).replace(/\|/g, '\\|');
    const lines = ['| Section | Measure | Value | Target | Result |', '|---|---|---|---|---|'];
    for (const r of this.rows) {
      const result = r.pass === undefined ? '' : r.pass ? 'PASS' : '**FAIL**';
      lines.push(
        `| ${[r.section, r.name, `${fmt(r.value)} ${r.unit}`, r.target ?? '', result].map(cell).join(' | ')} |`,
      );
    }
    return lines.join('\n');
  }

  /** Writes `{...meta, rows, details}` as JSON to `file` (directories created). */
  write(file, meta) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify({ ...meta, rows: this.rows, details: this.details }, null, 2)}\n`);
  }
}

function compare(v, op, t) {
  if (op === '>=') return v >= t;
  if (op === '<=') return v <= t;
  if (op === '<') return v < t;
  throw new Error(`unknown target operator ${op}`);
}

function round(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return v;
  return Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 100) / 100;
}

function fmt(v) {
  if (typeof v !== 'number') return String(v);
  return Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en-US') : String(v);
}

module.exports = { Results };
