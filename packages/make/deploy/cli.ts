/** `npm run deploy -w @evf/make [-- --dry-run]`: see deploy.ts and the README's "Deploy to Make". */
import { main } from './deploy';

main(
  process.argv.slice(2),
  process.env,
  (line) => console.log(line),
  (line) => console.error(line),
).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`Deploy failed: ${(err as Error).message}`);
    process.exitCode = 1;
  },
);
