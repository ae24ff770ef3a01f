/**
 * Preloaded into service processes by bench/profile.js (`NODE_OPTIONS=--require <this file>`; Node 20 refuses
 * `--cpu-prof` in NODE_OPTIONS): starts the V8 CPU profiler through `node:inspector` (200 µs sampling) and, when
 * the process exits (SIGTERM handlers end in `process.exit`), writes `<PROFILE_DIR>/<service>.<pid>.cpuprofile`,
 * `<service>` being the directory above `dist/main.js`.
 */
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const session = new inspector.Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 200 });
session.post('Profiler.start');
process.on('exit', () => {
  session.post('Profiler.stop', (err, result) => {
    if (err) return;
    const service = path.basename(path.dirname(path.dirname(process.argv[1] ?? 'unknown')));
    const file = path.join(process.env.PROFILE_DIR, `${service}.${process.pid}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(result.profile));
  });
});
