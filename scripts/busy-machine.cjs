#!/usr/bin/env node
// Runs a command with two CPU-bound processes beside it, the way a developer's or CI's machine is often
// busy (a build, a browser, another test run), then stops them. The tiers must pass like this: a test
// that fails only because the machine is busy is a defect of the test.
//   node scripts/busy-machine.cjs npm run test:unit
//   node scripts/busy-machine.cjs --burners 4 npm run test:sandbox
// Exits with the command's own exit code.
const { spawn } = require('node:child_process');

const args = process.argv.slice(2);
let burners = 2;
if (args[0] === '--burners') {
  burners = Number(args[1]);
  args.splice(0, 2);
}
if (!args.length || !Number.isInteger(burners) || burners < 0) {
  console.error('usage: node scripts/busy-machine.cjs [--burners N] <command> [args...]');
  process.exit(2);
}

// Each burner spins on one core until it is killed; none does I/O, so it only takes CPU time.
const burn = 'let x = 0; for (;;) { x = (x * 1103515245 + 12345) % 2147483648; }';
const procs = Array.from({ length: burners }, () =>
  spawn(process.execPath, ['-e', burn], { stdio: 'ignore' }),
);
console.log(`busy-machine: ${burners} CPU-bound processes beside \`${args.join(' ')}\``);

const stop = () => {
  for (const p of procs) p.kill('SIGKILL');
};
const child = spawn(args[0], args.slice(1), { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    child.kill(signal);
  });
child.on('exit', (code, signal) => {
  stop();
  process.exit(code ?? (signal ? 1 : 0));
});
child.on('error', (error) => {
  stop();
  console.error(`busy-machine: ${error.message}`);
  process.exit(1);
});
