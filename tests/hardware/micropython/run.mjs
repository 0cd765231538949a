// Runs Python in MicroPython's WebAssembly port under Node:
//   node run.mjs MICROPYTHON_MJS STATEMENT DIR...
// The .py files of each DIR go into the port's file system (one folder on sys.path),
// then STATEMENT runs. What it prints goes to stdout; an exception it raises goes to
// stderr and makes the exit status 1.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [portModule, statement, ...dirs] = process.argv.slice(2);
const { loadMicroPython } = await import(pathToFileURL(portModule).href);
const out = [];
const mp = await loadMicroPython({ stdout: (line) => out.push(line), stderr: (line) => out.push(line) });
mp.FS.mkdir("/fw");
for (const dir of dirs) {
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".py")) {
      mp.FS.writeFile(join("/fw", name), readFileSync(join(dir, name)));
    }
  }
}
let status = 0;
try {
  mp.runPython("import sys\nsys.path.insert(0, '/fw')\n" + statement);
} catch (error) {
  process.stderr.write(String(error.message || error) + "\n");
  status = 1;
}
process.stdout.write(out.map((line) => line + "\n").join(""));
process.exitCode = status;
