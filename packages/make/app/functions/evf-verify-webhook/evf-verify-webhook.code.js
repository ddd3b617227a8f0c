function evfVerifyWebhook(headers, body, secrets, now, toleranceSeconds) {
	// 'ok', or why a delivery is refused (the client verifier's codes). Make passes the parsed body
	// and no crypto module, so the signed string is rebuilt with JSON.stringify and HMAC-SHA256 is
	// plain JavaScript. Limits: packages/make/README.md, "Webhook signatures".
	function header(name) {
		var wanted = name.toLowerCase();
		for (var key in headers || {}) {
			var k = key.toLowerCase();
			if ((k === wanted || k === 'http-' + wanted) && headers[key] !== undefined && headers[key] !== null) {
				return Array.isArray(headers[key]) ? headers[key].join(',') : String(headers[key]);
			}
		}
		return undefined;
	}
	function ror(x, n) { return (x >>> n) | (x << (32 - n)); }
	function primes(count) {
		var list = [];
		for (var c = 2; list.length < count; c++) {
			if (list.every(function (p) { return c % p; })) list.push(c);
		}
		return list;
	}
	function frac32(x) { return ((x - Math.floor(x)) * 4294967296) >>> 0; }
	var P = primes(64);
	var K = P.map(function (p) { return frac32(Math.cbrt(p)); });
	var H0 = P.slice(0, 8).map(function (p) { return frac32(Math.sqrt(p)); });
	function sha256(m) {
		var len = m.length, n = ((len + 72) >> 6) << 6, b = new Uint8Array(n), w = new Array(64), H = H0.slice();
		b.set(m);
		b[len] = 0x80;
		var bits = len * 8;
		for (var i = 0; i < 4; i++) {
			b[n - 1 - i] = (bits >>> (8 * i)) & 255;
			b[n - 5 - i] = (Math.floor(bits / 4294967296) >>> (8 * i)) & 255;
		}
		for (var o = 0; o < n; o += 64) {
			for (var t = 0; t < 64; t++) {
				if (t < 16) {
					w[t] = (b[o + 4 * t] << 24) | (b[o + 4 * t + 1] << 16) | (b[o + 4 * t + 2] << 8) | b[o + 4 * t + 3];
				} else {
					var x = w[t - 15], y = w[t - 2];
					w[t] = (w[t - 16] + (ror(x, 7) ^ ror(x, 18) ^ (x >>> 3)) + w[t - 7] + (ror(y, 17) ^ ror(y, 19) ^ (y >>> 10))) | 0;
				}
			}
			var v = H.slice();
			for (t = 0; t < 64; t++) {
				var e = v[4], a = v[0];
				var t1 = (v[7] + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & v[5]) ^ (~e & v[6])) + K[t] + w[t]) | 0;
				var t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]))) | 0;
				v = [(t1 + t2) | 0, a, v[1], v[2], (v[3] + t1) | 0, e, v[5], v[6]];
			}
			for (i = 0; i < 8; i++) H[i] = (H[i] + v[i]) | 0;
		}
		var out = Buffer.alloc(32);
		for (i = 0; i < 8; i++) out.writeInt32BE(H[i], 4 * i);
		return out;
	}
	function hmacHex(secret, message) {
		var key = Buffer.from(secret, 'utf8');
		if (key.length > 64) key = sha256(key);
		var inner = Buffer.alloc(64 + message.length), outer = Buffer.alloc(96);
		for (var i = 0; i < 64; i++) {
			inner[i] = (key[i] || 0) ^ 0x36;
			outer[i] = (key[i] || 0) ^ 0x5c;
		}
		message.copy(inner, 64);
		sha256(inner).copy(outer, 64);
		return sha256(outer).toString('hex');
	}
	// Constant time: every character is compared whatever the first difference.
	function sameHex(a, b) {
		if (a.length !== b.length) return false;
		var diff = 0;
		for (var i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
		return diff === 0;
	}

	var keys = String(secrets === undefined || secrets === null ? '' : secrets).split(/[\s,]+/).filter(Boolean);
	if (keys.length === 0) return 'no_secret';
	var sig = header('x-service-signature');
	if (sig === undefined) return 'missing_signature';
	var candidates = sig.split(',').map(function (s) { return s.trim(); }).filter(function (s) { return s.indexOf('v1=') === 0; });
	if (candidates.length === 0 || !candidates.every(function (s) { return /^v1=[0-9a-f]{64}$/.test(s); })) return 'malformed_signature';
	var ts = header('x-service-timestamp');
	if (ts === undefined) return 'missing_timestamp';
	ts = ts.trim();
	if (!/^\d{1,12}$/.test(ts)) return 'malformed_timestamp';
	var nowMs = new Date(now === undefined || now === null ? Date.now() : now).getTime();
	var tolerance = typeof toleranceSeconds === 'number' ? toleranceSeconds : 300;
	var nowSeconds = Math.floor(nowMs / 1000);
	if (nowSeconds - Number(ts) > tolerance) return 'timestamp_too_old';
	if (Number(ts) - nowSeconds > tolerance) return 'timestamp_in_future';

	var raw = typeof body === 'string' ? body : JSON.stringify(body);
	var signed = Buffer.from(ts + '.' + (raw === undefined ? '' : raw), 'utf8');
	var matched = false;
	keys.forEach(function (k) {
		var expected = 'v1=' + hmacHex(k, signed);
		candidates.forEach(function (c) { if (sameHex(expected, c)) matched = true; });
	});
	if (!matched) return 'signature_mismatch';

	var parsed = body;
	if (typeof body === 'string') {
		try { parsed = JSON.parse(body); } catch (err) { return 'malformed_body'; }
	}
	var okBody = parsed && typeof parsed === 'object' && !Array.isArray(parsed) &&
		(parsed.event === 'job.completed' || parsed.event === 'job.failed') &&
		typeof parsed.job_id === 'string' && parsed.job_id !== '';
	return okBody ? 'ok' : 'malformed_body';
}
