/**
 * Summarises a `.cpuprofile` (V8 CPU profile JSON): self time per package (`node_modules/<pkg>`, the repository's
 * `libs/<x>` / `services/<x>`, Node's `node:<module>`, or V8's `(garbage collector)`, `(idle)`, `(program)`) and
 * per function, as percentages of all samples.
 */
const fs = require('node:fs');

function packageOf(url, functionName) {
  if (!url) return functionName || '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  const repo = /\/((?:libs|services|bench)\/[^/]+)\//.exec(url);
  if (repo) return repo[1];
  return url.startsWith('node:') ? url.split('/').slice(0, 2).join('/') : url;
}

/** `{samples, packages: [[name, percent]], functions: [[name, percent]]}` of the profile in `file`, top `n` each. */
function summarise(file, n = 25) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const packages = new Map();
  const functions = new Map();
  for (const id of profile.samples) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const pkg = packageOf(url, functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + 1);
    const fn = `${functionName || '(anonymous)'} ${pkg}:${lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const top = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, count]) => [name, (100 * count) / total]);
  return { samples: total, packages: top(packages), functions: top(functions) };
}

module.exports = { summarise };
