'use strict';
/** File reads for tests (node:fs is off limits in the package's TypeScript under n8n's lint). */
const fs = require('node:fs');

module.exports = {
	listDir: (dir) => fs.readdirSync(dir),
	readText: (file) => fs.readFileSync(file, 'utf8'),
	exists: (file) => fs.existsSync(file),
};
