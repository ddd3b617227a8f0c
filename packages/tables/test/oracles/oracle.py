#!/usr/bin/python3
"""
The independent readers and writers for write-back-oracles.e2e.test.ts (Debian's python3-openpyxl and
python3-xlsxwriter).

    oracle.py make <dir>      writes openpyxl.xlsx and xlsxwriter.xlsx into <dir>: a title merged above
                              the header, an empty row, styles, widths, a defined name, dates, formulas
                              (openpyxl saves none of their values; XlsxWriter saves 0 and asks for a
                              recalculation), texts that look like formulas, ECMA-376 escapes, a second sheet
    oracle.py dump <file>...  prints, as JSON by file, every cell of every sheet as openpyxl reads it (value,
                              type, number format, cached value), the merged ranges, defined names and widths
"""
import datetime, json, os, sys

HEADER = ['Name', 'Email', 'Phone', 'Signed Up', 'Total', 'Note']
ROWS = [
    ['Ada', 'ada@x.com', '00501', datetime.datetime(2024, 1, 2), '=2+3', '=SUM(1,2)'],
    ['Bob', 'bob@x.com', '+49 151 123', datetime.datetime(2024, 3, 7, 14, 30), '=E4*2', 'Line\r\nbreak _x0041_'],
    ['Cy', 'not an address', '', None, 7, ''],
    ['Dee', 'ada@x.com', '', None, 1, 'copy'],
    ['Eve', 'eve@x.com', '447912345678', None, 2.5, 'no answer'],
]
TEXT_LIKE_FORMULA = {'=SUM(1,2)', '+49 151 123'}


def make_openpyxl(path):
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill
    from openpyxl.workbook.defined_name import DefinedName
    wb = Workbook()
    cover = wb.active
    cover.title = 'Cover'
    cover['A1'] = 'Made by openpyxl'
    ws = wb.create_sheet('Leads')
    ws['A1'] = 'Leads from the May fair'
    ws['A1'].font = Font(bold=True, size=14)
    ws.merge_cells('A1:F1')
    for c, h in enumerate(HEADER, 1):
        cell = ws.cell(row=3, column=c, value=h)
        cell.font = Font(bold=True)
        cell.fill = PatternFill('solid', fgColor='DDEEFF')
    for r, row in enumerate(ROWS, 4):
        for c, v in enumerate(row, 1):
            if v is None or v == '':
                continue
            cell = ws.cell(row=r, column=c, value=v)
            if isinstance(v, str) and (v in TEXT_LIKE_FORMULA or v.startswith('+')):
                cell.data_type = 's'
            if isinstance(v, datetime.datetime):
                cell.number_format = 'yyyy-mm-dd' if v.hour == 0 else 'yyyy-mm-dd hh:mm'
    ws['E8'].number_format = '#,##0.00'
    ws.column_dimensions['A'].width = 14
    ws.column_dimensions['B'].width = 28
    wb.create_sheet('Other')['A1'] = 'x'
    wb.defined_names.append(DefinedName('LeadList', attr_text='Leads!$A$3:$F$8'))
    wb.save(path)


def make_xlsxwriter(path):
    import xlsxwriter
    wb = xlsxwriter.Workbook(path, {'strings_to_formulas': False, 'strings_to_numbers': False})
    cover = wb.add_worksheet('Cover')
    cover.write_string('A1', 'Made by XlsxWriter')
    ws = wb.add_worksheet('Leads')
    bold = wb.add_format({'bold': True, 'bg_color': '#DDEEFF'})
    title = wb.add_format({'bold': True, 'font_size': 14})
    day = wb.add_format({'num_format': 'yyyy-mm-dd'})
    minute = wb.add_format({'num_format': 'yyyy-mm-dd hh:mm'})
    money = wb.add_format({'num_format': '#,##0.00'})
    ws.merge_range('A1:F1', 'Leads from the May fair', title)
    for c, h in enumerate(HEADER):
        ws.write_string(2, c, h, bold)
    for r, row in enumerate(ROWS, 3):
        for c, v in enumerate(row):
            if v is None or v == '':
                continue
            if isinstance(v, datetime.datetime):
                ws.write_datetime(r, c, v, day if v.hour == 0 else minute)
            elif isinstance(v, str) and v.startswith('=') and v not in TEXT_LIKE_FORMULA:
                ws.write_formula(r, c, v)
            elif isinstance(v, str):
                ws.write_string(r, c, v)
            else:
                ws.write_number(r, c, v, money if r == 7 and c == 4 else None)
    ws.set_column('A:A', 14)
    ws.set_column('B:B', 28)
    wb.add_worksheet('Other').write_string('A1', 'x')
    wb.define_name('LeadList', '=Leads!$A$3:$F$8')
    wb.close()


def text(v):
    if v is None:
        return None
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, bool):
        return 'TRUE' if v else 'FALSE'
    return str(v)


def dump(path):
    from openpyxl import load_workbook
    formulas = load_workbook(path)
    values = load_workbook(path, data_only=True)
    out = {'sheets': {}, 'names': {}}
    try:
        items = formulas.defined_names.items()
    except AttributeError:
        items = [(d.name, d) for d in formulas.defined_names.definedName]
    for name, d in items:
        out['names'][name] = d.attr_text
    for ws in formulas.worksheets:
        cached = values[ws.title]
        cells = {}
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is None and not cell.has_style:
                    continue
                cells[cell.coordinate] = [
                    text(cell.value),
                    cell.data_type,
                    cell.number_format,
                    text(cached[cell.coordinate].value),
                ]
        out['sheets'][ws.title] = {
            'cells': cells,
            'merged': sorted(str(r) for r in ws.merged_cells.ranges),
            'widths': {k: d.width for k, d in ws.column_dimensions.items() if d.width},
        }
    return out


if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make_openpyxl(os.path.join(sys.argv[2], 'openpyxl.xlsx'))
        make_xlsxwriter(os.path.join(sys.argv[2], 'xlsxwriter.xlsx'))
    elif sys.argv[1] == 'dump':
        print(json.dumps({os.path.basename(p): dump(p) for p in sys.argv[2:]}))
