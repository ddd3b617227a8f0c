/** File reads for tests, in one place (n8n's lint keeps node:fs out of the package's TypeScript). */
/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, never packed: files ships dist only */
import * as fs from 'node:fs';

export const listDir = (dir: string): string[] => fs.readdirSync(dir);
export const readText = (file: string): string => fs.readFileSync(file, 'utf8');
export const exists = (file: string): boolean => fs.existsSync(file);
