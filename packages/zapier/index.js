// Zapier loads the app from the package root; the app itself is bundled (client included) into dist/.
module.exports = require('./dist/index.js').default;
