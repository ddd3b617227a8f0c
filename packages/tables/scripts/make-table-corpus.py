#!/usr/bin/python3
"""
Regenerates packages/tables/test/fixtures/tables/: the table files the reader is tested on,
made by the programs users have. Needs Debian's libreoffice-calc, python3-openpyxl, python3-xlsxwriter
and Node.js with the repo's dev dependencies (@e965/xlsx). The tests read the committed files, so a
clone without these programs still runs them; run this again only to change the corpus.

    /usr/bin/python3 packages/tables/scripts/make-table-corpus.py

Every file holds the same small list (addresses, a name with accents, a date, a date-time, a zip code
kept as text and one zero-padded by its format, a 12-digit phone, General and formatted numbers), so a
test can compare the files with one another. Beside each XLSX, LibreOffice's own CSV export of it
("<name>.shown.csv", UTF-8, cells as shown) records what a user sees in a spreadsheet program.
"""
import csv, datetime, io, os, shutil, subprocess, sys, tempfile, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(ROOT, 'packages', 'tables', 'test', 'fixtures', 'tables')

HEADER = ['Email', 'Name', 'Signed Up', 'Last Seen', 'Zip', 'Zip Code', 'Phone', 'Score', 'Amount', 'Share']
ROWS = [
    ['ada@example.com', 'Ada Lovelace', datetime.date(2024, 1, 2), datetime.datetime(2024, 3, 7, 14, 30), '00501', 2134, 447912345678, 0.1, 1234.5, 0.25],
    ['zoe@exämple.com', 'Zoë Müller, "Zo"', datetime.date(2023, 12, 31), datetime.datetime(2024, 3, 7, 9, 5, 30), '02134', 501, 15551234567, 3, -12, 0.125],
    ['bob@example.org', 'Bob € Señor', datetime.date(2000, 2, 29), datetime.datetime(1999, 12, 31, 23, 59, 59), '10001', 90210, 442071234567, 12345.678, 0, 1],
]
FORMATS = {'Signed Up': 'yyyy-mm-dd', 'Last Seen': 'yyyy-mm-dd h:mm:ss', 'Zip Code': '00000', 'Amount': '#,##0.00', 'Share': '0%'}


def openpyxl_file(path):
    import openpyxl
    wb = openpyxl.Workbook()
    hidden = wb.active
    hidden.title = 'Archive'
    hidden.append(['Email'])
    hidden.append(['old@example.com'])
    hidden.sheet_state = 'hidden'
    ws = wb.create_sheet('Leads')
    ws.append(HEADER)
    for row in ROWS:
        ws.append(row)
    for col, name in enumerate(HEADER, start=1):
        if name in FORMATS:
            for r in range(2, len(ROWS) + 2):
                ws.cell(row=r, column=col).number_format = FORMATS[name]
    ws.append([])
    ws.append(['', 'No address'])
    wb.create_sheet('Notes').append(['A second visible sheet'])
    wb.save(path)


def xlsxwriter_file(path, inline):
    import xlsxwriter
    # constant_memory writes every string inline (<c t="inlineStr">) instead of in shared strings.
    wb = xlsxwriter.Workbook(path, {'constant_memory': inline})
    ws = wb.add_worksheet('Leads')
    fmt = {k: wb.add_format({'num_format': v}) for k, v in FORMATS.items()}
    fmt['Signed Up'] = wb.add_format({'num_format': 'dd/mm/yyyy'})
    fmt['Last Seen'] = wb.add_format({'num_format': 'mmm d, yyyy h:mm AM/PM'})
    bold = wb.add_format({'bold': True})
    ws.write_row(0, 0, HEADER)
    for r, row in enumerate(ROWS, start=1):
        for c, value in enumerate(row):
            f = fmt.get(HEADER[c])
            if isinstance(value, datetime.date):
                ws.write_datetime(r, c, value if isinstance(value, datetime.datetime) else datetime.datetime.combine(value, datetime.time()), f)
            elif c == 1 and not inline:
                # A rich string: runs of text with their own fonts, one cell.
                ws.write_rich_string(r, c, bold, value[:3], value[3:])
            elif isinstance(value, str):
                ws.write_string(r, c, value, f)
            else:
                ws.write_number(r, c, value, f)
    wb.close()


def sheetjs_file(path):
    script = r'''
const XLSX = require('@e965/xlsx');
const [header, rows] = JSON.parse(process.argv[1]);
const aoa = [header, ...rows.map((r) => r.map((v, i) => (i === 2 || i === 3 ? new Date(v + 'Z') : v)))];
const ws = XLSX.utils.aoa_to_sheet(aoa, { cellDates: false });
for (let r = 1; r <= rows.length; r++) {
  ws[XLSX.utils.encode_cell({ r, c: 2 })].z = 'yyyy-mm-dd';
  ws[XLSX.utils.encode_cell({ r, c: 3 })].z = 'yyyy-mm-dd hh:mm';
  ws[XLSX.utils.encode_cell({ r, c: 5 })].z = '00000';
  ws[XLSX.utils.encode_cell({ r, c: 8 })].z = '#,##0.00';
  ws[XLSX.utils.encode_cell({ r, c: 9 })].z = '0%';
}
const wb = XLSX.utils.book_new();
XLSX.utils.book_append_sheet(wb, ws, 'Leads');
XLSX.writeFile(wb, process.argv[2], { bookSST: true, compression: true });
'''
    data = [HEADER, [[v.isoformat() if isinstance(v, (datetime.date,)) else v for v in r] for r in ROWS]]
    import json
    subprocess.run(['node', '-e', script, json.dumps(data), path], check=True, cwd=ROOT)


def soffice(src, target, outdir):
    subprocess.run(['soffice', '--headless', '--norestore', '--convert-to', target, '--outdir', outdir, src], check=True, stdout=subprocess.DEVNULL)


def crafted(path, variant):
    """Hand-made workbooks for what the programs above do not write but other valid producers do."""
    ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
    rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
    if variant == 'prefixed':
        # The .NET Open XML SDK and some exporters bind SpreadsheetML to a prefix such as x:.
        book = f'<x:workbook xmlns:x="{ns}" xmlns:r="{rel}"><x:sheets><x:sheet name="Leads" sheetId="1" r:id="rId1"/></x:sheets></x:workbook>'
        sheet = (f'<x:worksheet xmlns:x="{ns}"><x:sheetData><x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="s"><x:v>1</x:v></x:c></x:row>'
                 '<x:row r="2"><x:c r="A2" t="s"><x:v>2</x:v></x:c><x:c r="B2" t="n"><x:v>42</x:v></x:c></x:row></x:sheetData></x:worksheet>')
        sst = f'<x:sst xmlns:x="{ns}"><x:si><x:t>Email</x:t></x:si><x:si><x:t>Score</x:t></x:si><x:si><x:t>ada@example.com</x:t></x:si></x:sst>'
        sst_name = 'xl/sharedStrings.xml'
    else:
        # Single-quoted attributes, an empty <si/>, CDATA, and shared strings at a name only the
        # workbook's relationships give: all valid XML and valid ECMA-376.
        book = f"<workbook xmlns='{ns}' xmlns:r='{rel}'><sheets><sheet name='Leads' sheetId='1' r:id='rId1'/></sheets></workbook>"
        sheet = (f"<worksheet xmlns='{ns}'><sheetData><row r='1'><c r='A1' t='s'><v>0</v></c><c r='B1' t='s'><v>1</v></c></row>"
                 "<row r='2'><c r='A2' t='s'><v>2</v></c><c r='B2' t='s'><v>3</v></c></row>"
                 "<row r='3'><c r='A3' t='s'><v>4</v></c><c r='B3' t='s'><v>5</v></c></row></sheetData></worksheet>")
        sst = (f"<sst xmlns='{ns}'><si><t>Email</t></si><si><t>Note</t></si><si><t>ada@example.com</t></si><si/>"
               "<si><t><![CDATA[bob@example.org]]></t></si><si><t><![CDATA[<b> & </b>]]></t></si></sst>")
        sst_name = 'xl/strings/custom-strings.xml'
    sst_target = sst_name[3:]
    rels = (f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/>'
            f'<Relationship Id="rId2" Type="{rel}/sharedStrings" Target="{sst_target}"/></Relationships>')
    root_rels = (f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                 f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
    types = ('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
             '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
             '<Default Extension="xml" ContentType="application/xml"/>'
             '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
             '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
             f'<Override PartName="/{sst_name}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('[Content_Types].xml', types)
        z.writestr('_rels/.rels', root_rels)
        z.writestr('xl/workbook.xml', book)
        z.writestr('xl/_rels/workbook.xml.rels', rels)
        z.writestr('xl/worksheets/sheet1.xml', sheet)
        z.writestr(sst_name, sst)


def text_files(shown_csv):
    """CSV and TSV in the encodings and shapes spreadsheet programs save."""
    with open(shown_csv, encoding='utf-8', newline='') as f:
        rows = list(csv.reader(f))

    def write(name, delimiter, encoding, bom=b'', sep_line=False, line='\r\n'):
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=delimiter, lineterminator=line)
        if sep_line:
            buf.write(f'sep={delimiter}{line}')
        w.writerows(rows)
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(bom + buf.getvalue().encode(encoding))

    write('utf8.csv', ',', 'utf-8', line='\n')
    write('utf8-bom.csv', ',', 'utf-8', bom=b'\xef\xbb\xbf')
    # Excel's "Unicode Text": UTF-16 little-endian with a BOM, tab-separated.
    write('utf16le-bom.txt', '\t', 'utf-16-le', bom=b'\xff\xfe')
    write('utf16le-no-bom.csv', ',', 'utf-16-le')
    write('utf16be-bom.csv', ',', 'utf-16-be', bom=b'\xfe\xff')
    # Excel's "CSV (Comma delimited)" on a Western Windows: Windows-1252; in a locale whose decimal
    # mark is a comma it separates with ';', and files meant for both often begin with Excel's sep= line.
    write('windows-1252.csv', ',', 'cp1252')
    write('windows-1252-semicolon-sep.csv', ';', 'cp1252', sep_line=True)
    write('tab.tsv', '\t', 'utf-8', line='\n')
    # Google Sheets' File > Download > CSV: UTF-8 (community.certain.com/webhelp/508/certain6.1/
    # csv_format.htm recommends it over Excel for that reason) without a BOM, cells as shown, quoted
    # only where needed. Not checked against a live export here: the BOM's absence and the CRLF line
    # ends (RFC 4180's) are this script's assumption of the shape.
    write('google-sheets.csv', ',', 'utf-8')


def main():
    for tool in ('soffice', 'node'):
        if not shutil.which(tool):
            sys.exit(f'{tool} is needed: apt-get install libreoffice-calc nodejs')
    os.makedirs(OUT, exist_ok=True)
    openpyxl_file(os.path.join(OUT, 'openpyxl.xlsx'))
    xlsxwriter_file(os.path.join(OUT, 'xlsxwriter.xlsx'), inline=False)
    xlsxwriter_file(os.path.join(OUT, 'xlsxwriter-inline.xlsx'), inline=True)
    sheetjs_file(os.path.join(OUT, 'sheetjs.xlsx'))
    crafted(os.path.join(OUT, 'crafted-prefixed.xlsx'), 'prefixed')
    crafted(os.path.join(OUT, 'crafted-quotes-cdata.xlsx'), 'quotes')
    with tempfile.TemporaryDirectory() as tmp:
        # LibreOffice's own XLSX, written from the openpyxl file (Calc keeps hidden sheets and formats).
        soffice(os.path.join(OUT, 'openpyxl.xlsx'), 'xlsx:Calc MS Excel 2007 XML', tmp)
        shutil.copy(os.path.join(tmp, 'openpyxl.xlsx'), os.path.join(OUT, 'libreoffice.xlsx'))
        # What each workbook shows: LibreOffice's CSV export of its sheet "Leads", cells as shown
        # (filter options: comma, double quote, UTF-8 (76), from row 1, format as shown; sheet by name
        # is not an option, so the sheet is given by number).
        for name, sheet in (('openpyxl', 2), ('libreoffice', 2), ('xlsxwriter', 1), ('xlsxwriter-inline', 1), ('sheetjs', 1),
                            ('crafted-prefixed', 1), ('crafted-quotes-cdata', 1)):
            soffice(os.path.join(OUT, f'{name}.xlsx'), f'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,{sheet}', tmp)
            produced = [f for f in os.listdir(tmp) if f.startswith(name) and f.endswith('.csv')][0]
            shutil.move(os.path.join(tmp, produced), os.path.join(OUT, f'{name}.shown.csv'))
        # LibreOffice's own text exports of its workbook: ';' in Windows-1252 (encoding 1), and tab in
        # UTF-16 with a BOM (encoding 65535), as Excel's "Unicode Text" is.
        for target, options in (('libreoffice-semicolon-1252.csv', '59,34,1'), ('libreoffice-unicode.txt', '9,34,65535')):
            soffice(os.path.join(OUT, 'libreoffice.xlsx'), f'csv:Text - txt - csv (StarCalc):{options},1,,0,false,true,true,false,false,2', tmp)
            produced = [f for f in os.listdir(tmp) if f.startswith('libreoffice') and f.endswith('.csv')][0]
            shutil.move(os.path.join(tmp, produced), os.path.join(OUT, target))
    text_files(os.path.join(OUT, 'libreoffice.shown.csv'))
    print('written:', ', '.join(sorted(os.listdir(OUT))))


if __name__ == '__main__':
    main()
