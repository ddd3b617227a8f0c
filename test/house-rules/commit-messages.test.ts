/**
 * The commit-message rule of scripts/check-commits.cjs (run by the commit-msg hook and by npm test):
 * a subject of at most 72 characters, and a blank line before any body.
 */
const { BASE, MAX_SUBJECT, messageProblems, logProblems } = require('../../scripts/check-commits.cjs') as {
  BASE: string;
  MAX_SUBJECT: number;
  messageProblems: (message: string) => string[];
  logProblems: (log: string) => string[];
};

const subject = (n: number) => `area: ${'x'.repeat(n - 6)}`;

describe('commit messages', () => {
  test('a short subject alone, or with a body after a blank line, passes', () => {
    expect(messageProblems('test: name every suite by its tier\n')).toEqual([]);
    expect(messageProblems(`${subject(MAX_SUBJECT)}\n\nWhy, measured, wrapped at 72.\nMore.\n`)).toEqual([]);
  });

  test('a subject over 72 characters fails, saying how long it is', () => {
    expect(MAX_SUBJECT).toBe(72);
    expect(messageProblems(`${subject(73)}\n`)).toEqual([
      expect.stringContaining('the subject is 73 characters, over 72'),
    ]);
  });

  test('a body without a blank line after the subject fails; an empty message fails', () => {
    expect(messageProblems('client: a change\nand the reason right under it\n')).toEqual([
      'the line after the subject is not blank: leave one blank line before the body',
    ]);
    expect(messageProblems('\n\n')).toEqual(['the subject line is empty']);
  });

  test("git's template comments and the scissors diff of commit -v are not the message", () => {
    const template = '# Please enter the commit message\n# Lines starting with # are ignored\n';
    expect(messageProblems(`client: short\n${template}`)).toEqual([]);
    const verbose = `client: short\n\n# ------------------------ >8 ------------------------\n${'+'.repeat(200)}\n`;
    expect(messageProblems(verbose)).toEqual([]);
  });

  test('a log names each bad commit by its short hash and subject', () => {
    const log =
      `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\0test: fine\n\nbody\n\0\n` +
      `bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\0${subject(100)}\n\0\n`;
    expect(logProblems(log)).toEqual([
      expect.stringMatching(/^bbbbbbb "area: x+": the subject is 100 characters/),
    ]);
  });

  test('history before the recorded base is exempt', () => {
    expect(BASE).toBe('3ed1a4f');
  });
});
