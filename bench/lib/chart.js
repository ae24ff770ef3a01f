/**
 * A small SVG line chart for bench/results/latest.svg: panels side by side, each with its own axes (x on a log
 * scale when asked), one polyline with dots per series, a legend, and axis labels. No dependencies.
 */
const W = 380;
const H = 260;
const M = { left: 62, right: 12, top: 30, bottom: 62 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const short = (v) =>
  v >= 1e6 ? `${+(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${+(v / 1e3).toFixed(1)}k` : `${+v.toFixed(1)}`;

function panel(p, x0) {
  const pts = p.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (!pts.length) return '';
  const fx = p.logX ? Math.log10 : (v) => v;
  const xs = pts.map(([x]) => fx(x));
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  const yMax = Math.max(...pts.map(([, y]) => y)) * 1.1 || 1;
  const iw = W - M.left - M.right;
  const ih = H - M.top - M.bottom;
  const sx = (x) => x0 + M.left + (xMax === xMin ? iw / 2 : ((fx(x) - xMin) / (xMax - xMin)) * iw);
  const sy = (y) => M.top + ih - (y / yMax) * ih;
  const out = [`<text x="${x0 + W / 2}" y="18" text-anchor="middle" font-weight="bold">${esc(p.title)}</text>`];
  out.push(
    `<line x1="${x0 + M.left}" y1="${M.top + ih}" x2="${x0 + M.left + iw}" y2="${M.top + ih}" stroke="#333"/>`,
    `<line x1="${x0 + M.left}" y1="${M.top}" x2="${x0 + M.left}" y2="${M.top + ih}" stroke="#333"/>`,
  );
  for (let i = 0; i <= 4; i++) {
    const y = (yMax * i) / 4;
    out.push(
      `<line x1="${x0 + M.left}" y1="${sy(y)}" x2="${x0 + M.left + iw}" y2="${sy(y)}" stroke="#ddd"/>`,
      `<text x="${x0 + M.left - 4}" y="${sy(y) + 4}" text-anchor="end">${short(y)}</text>`,
    );
  }
  for (const x of [...new Set(pts.map(([x]) => x))])
    out.push(`<text x="${sx(x)}" y="${M.top + ih + 14}" text-anchor="middle">${short(x)}</text>`);
  out.push(
    `<text x="${x0 + M.left + iw / 2}" y="${M.top + ih + 30}" text-anchor="middle">${esc(p.xLabel)}</text>`,
    `<text transform="translate(${x0 + 12},${M.top + ih / 2}) rotate(-90)" text-anchor="middle">${esc(p.yLabel)}</text>`,
  );
  p.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const ok = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    const line = ok.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${line}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const [x, y] of ok) out.push(`<circle cx="${sx(x)}" cy="${sy(y)}" r="3" fill="${color}"/>`);
    const lx = x0 + M.left + (i % 2) * (iw / 2);
    const ly = M.top + ih + 44 + Math.floor(i / 2) * 12;
    out.push(
      `<rect x="${lx}" y="${ly - 8}" width="10" height="3" fill="${color}"/>`,
      `<text x="${lx + 14}" y="${ly - 4}">${esc(s.name.length > 26 ? `${s.name.slice(0, 25)}…` : s.name)}</text>`,
    );
  });
  return out.join('\n');
}

/**
 * The SVG document of `panels` side by side. Each panel: `{title, xLabel, yLabel, logX?, series: [{name,
 * points: [[x, y], ...]}]}`; points with a non-finite coordinate are left out.
 */
function curvesSvg(panels) {
  const body = panels.map((p, i) => panel(p, i * W)).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W * panels.length}" height="${H + 30}" font-family="sans-serif" font-size="10">\n<rect width="100%" height="100%" fill="white"/>\n${body}\n</svg>\n`;
}

module.exports = { curvesSvg };
