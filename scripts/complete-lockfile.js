#!/usr/bin/env node
/**
 * `node scripts/complete-lockfile.js`: adds to package-lock.json the optional platform packages that `npm install`
 * left out, so `npm ci` accepts the lockfile. Run it after changing dependencies.
 *
 * Why: packages such as @swc/core, @biomejs/biome and jest's resolver ship one optional package per platform. This
 * workplace's registry serves only the Linux glibc builds; for the others it answers 404, `npm install` skips them
 * without a word, and the lockfile it writes lacks them. `npm ci` then refuses the lockfile ("Missing: ... from lock
 * file"). An entry with the package's platform (`os`, `cpu`, `libc`, read from its name as these projects publish
 * them) and `optional: true` is what npm itself records; npm never downloads it on a platform it does not match.
 */
const fs = require('node:fs');
const path = require('node:path');

const OS = ['android', 'darwin', 'freebsd', 'linux', 'win32', 'openharmony', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPU = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  wasm32: 'wasm32',
};

/** The platform fields of a per-platform package, from its name (e.g. `@swc/core-linux-x64-musl`). */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  if (!os || !cpu) return null;
  const libc = os !== 'linux' ? undefined : parts.includes('musl') || parts.includes('musleabihf') ? 'musl' : 'glibc';
  return { cpu: [cpu], ...(libc ? { libc: [libc] } : {}), os: [os] };
}

function main() {
  const file = path.resolve(__dirname, '..', 'package-lock.json');
  const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
  const added = [];
  for (const [, entry] of Object.entries(lock.packages)) {
    for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
      const key = `node_modules/${dep}`;
      const platform = platformOf(dep);
      if (lock.packages[key] || !platform || !/^\d+\.\d+\.\d+/.test(range)) continue;
      lock.packages[key] = { version: range, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
      added.push(`${dep}@${range}`);
    }
  }
  lock.packages = Object.fromEntries(
    Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
  );
  fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(
    added.length ? `added ${added.length} platform packages:\n  ${added.join('\n  ')}\n` : 'lockfile complete\n',
  );
}

main();
