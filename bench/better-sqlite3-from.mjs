// Benchmarks only (bench/sqlite-drivers.ts): makes `require('better-sqlite3')` load the build in
// AX_BENCH_BS3_DIR (better-sqlite3 compiled for the Node running this) instead of the one npm
// built for the machine's Node, so both drivers can be timed under the same runtime.
import Module from 'node:module';

const dir = process.env.AX_BENCH_BS3_DIR;
if (dir) {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return resolve.call(this, request === 'better-sqlite3' ? dir : request, ...rest);
  };
}
