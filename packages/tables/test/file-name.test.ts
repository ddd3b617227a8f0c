import { createRequire } from 'node:module';
import fc from 'fast-check';
import { downloadedFileName, fileNameFromContentDisposition } from '../src/file-name';

// The content-disposition package (0.5.4, in zapier-platform-core's tree) as the oracle for valid headers.
const contentDisposition = createRequire(__filename)('content-disposition') as {
  parse: (header: string) => { type: string; parameters: Record<string, string> };
  (name: string, options?: { type?: string }): string;
};

describe('the file name of a download (Content-Disposition, RFC 6266 and RFC 8187)', () => {
  it('keeps a quoted name whole, prefers filename*, decodes escapes and percent-encoding', () => {
    expect(fileNameFromContentDisposition('attachment; filename="a;b.csv"')).toBe('a;b.csv');
    expect(fileNameFromContentDisposition('attachment; filename="say \\"hi\\".xlsx"; size=10')).toBe(
      'say "hi".xlsx',
    );
    expect(
      fileNameFromContentDisposition(
        `attachment; filename="naive.csv"; filename*=UTF-8''na%C3%AFve%20list.csv`,
      ),
    ).toBe('naïve list.csv');
    expect(fileNameFromContentDisposition(`attachment; filename*=iso-8859-1'en'M%FCller.csv`)).toBe(
      'Müller.csv',
    );
    expect(fileNameFromContentDisposition('attachment; FILENAME=leads.tsv')).toBe('leads.tsv');
    // Unquoted names with spaces, as some servers send them, and a path, which is never kept.
    expect(fileNameFromContentDisposition('attachment; filename=my leads.csv')).toBe('my leads.csv');
    expect(fileNameFromContentDisposition('attachment; filename="C:\\\\Users\\\\a\\\\list.csv"')).toBe(
      'list.csv',
    );
    expect(fileNameFromContentDisposition('attachment; filename="unclosed.csv')).toBeUndefined();
    expect(fileNameFromContentDisposition('inline')).toBeUndefined();
  });

  it('falls back to the URL path, then list.csv', () => {
    expect(downloadedFileName(null, 'https://files.example/x/My%20Leads.xlsx?sig=1')).toBe('My Leads.xlsx');
    expect(downloadedFileName('attachment; filename="a;b.csv"', 'https://files.example/x/other.xlsx')).toBe(
      'a;b.csv',
    );
    expect(downloadedFileName(undefined, 'https://files.example/')).toBe('list.csv');
  });

  it('property: reads back every name the content-disposition package writes, as that package parses it', () => {
    const name = fc.string({
      unit: fc.constantFrom('a', 'Z', '0', ' ', ';', '"', '\\', '.', ',', '=', 'é', 'ü', '€', '😀', '%', "'"),
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(name, fc.constantFrom('.csv', '.xlsx', '.tsv'), (stem, ext) => {
        const file = `${stem}${ext}`.trim();
        if (!file || /[\\/]/.test(file)) return;
        const header = contentDisposition(file);
        const theirs = contentDisposition.parse(header).parameters;
        expect(fileNameFromContentDisposition(header)).toBe(theirs.filename ?? theirs['filename*']);
      }),
      { numRuns: 500 },
    );
  });
});
