import { defineApp, version as platformVersion } from 'zapier-platform-core';
import packageJson from '../package.json';
import { authentication } from './authentication';
import getCreditBalance from './creates/get-credit-balance';
import revokeApiKey from './creates/revoke-api-key';
import submitBulk from './creates/submit-bulk';
import verifyEmail from './creates/verify-email';
import verifyListAndWait from './creates/verify-list-and-wait';
import verifyFileAndWait from './creates/verify-file-and-wait';
import findJob from './searches/find-job';
import findJobResults from './searches/find-job-results';
import creditBalanceBelow from './triggers/credit-balance-below';
import jobFinished from './triggers/job-finished';
import recentJobs from './triggers/recent-jobs';

export default defineApp({
  version: packageJson.version,
  platformVersion,
  authentication,
  flags: {
    // Core would otherwise patch Node's http/https modules and global fetch for the whole process to log
    // third-party calls. Every call of this app goes through z.request (logged anyway), and the patch
    // drops the options of http.request(url, options, callback) calls made by anything else in the
    // same process (the sandbox's webhook sender in tests and `npm run demo`).
    skipHttpPatch: true,
  },
  triggers: {
    [creditBalanceBelow.key]: creditBalanceBelow,
    [jobFinished.key]: jobFinished,
    [recentJobs.key]: recentJobs,
  },
  searches: {
    [findJob.key]: findJob,
    [findJobResults.key]: findJobResults,
  },
  creates: {
    [verifyEmail.key]: verifyEmail,
    [submitBulk.key]: submitBulk,
    [verifyListAndWait.key]: verifyListAndWait,
    [verifyFileAndWait.key]: verifyFileAndWait,
    [revokeApiKey.key]: revokeApiKey,
    [getCreditBalance.key]: getCreditBalance,
  },
});
