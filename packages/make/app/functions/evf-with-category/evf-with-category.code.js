function evfWithCategory(row) {
	// The client's `withCategory`: the row as the API sent it, plus flat category, group and
	// safe_to_send fields, so a Make filter can route on them without nested mapping.
	var out = {};
	if (row && typeof row === 'object') {
		for (var key in row) {
			if (Object.prototype.hasOwnProperty.call(row, key)) out[key] = row[key];
		}
	}
	var c = iml.evfCategorize(row && row.details);
	out.category = c.category;
	out.group = c.group;
	out.safe_to_send = c.safe_to_send;
	return out;
}
