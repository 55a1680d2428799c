/* decode_out.c - decoded objects as JSON and as one line of text (see decode.h). */
#include "output/decode/decode_int.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/cursor.h"
#include "carver/base/escape.h"
#include "carver/base/xalloc.h"

#define DEC_EXACT_LONG 9007199254740992LL   /* 2^53: larger longs are JSON strings */

enum { DEC_TEXT_FIELDS_NESTED = 2 };   /* String fields a referenced object shows in text */

/* ---- numbers ---- */

static void json_char(struct wbuf *out, int64_t unit);

void dec_json_u64(struct wbuf *b, uint64_t v)
{
	wbuf_dec(b, v);
}

void dec_json_i64(struct wbuf *b, int64_t v)
{
	if (v < 0) {
		wbuf_u8(b, '-');
		dec_json_u64(b, 0 - (uint64_t)v);
	} else {
		dec_json_u64(b, (uint64_t)v);
	}
}

void dec_json_long(struct wbuf *b, int64_t v)
{
	bool exact = v >= -DEC_EXACT_LONG && v <= DEC_EXACT_LONG;
	if (!exact)
		wbuf_u8(b, '"');
	dec_json_i64(b, v);
	if (!exact)
		wbuf_u8(b, '"');
}

void dec_json_hex(struct wbuf *b, uint64_t v)
{
	WBUF_LIT(b, "\"0x");
	wbuf_hex(b, v);
	wbuf_u8(b, '"');
}

/* A finite non-zero double's 17 significant digits and decimal exponent, as one "%.16e"
 * (printf's exact, correctly rounded conversion) writes them. */
struct real_digits {
	char d[17];
	int exp;
	bool neg;
};

#if LDBL_MANT_DIG >= 64
/* 10^0 .. 10^27, exact in long double (5^27 < 2^64). */
static const long double pow10_exact[28] = {
	1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
	1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
};
#endif

/* r from |v| * 10^(16 - x) in long double, without printf: the product or quotient of two
 * exact numbers is rounded once, so it is off by at most 2^-64 of itself (< 0.006 below 10^17)
 * and its rounding to an integer is printf's unless it lies within 1/64 of a half (a tie, or
 * too close to call).  False then, and outside |v| in 1e-11 .. 1e43 (10^k no longer exact). */
static bool real_digits_fast(double v, struct real_digits *r)
{
#if LDBL_MANT_DIG >= 64
	const uint64_t lo = 10000000000000000ull, hi = 100000000000000000ull;
	int e;
	frexp(v, &e);
	int x = (int)floor((e - 1) * 0.30102999566398120);   /* floor(log10 |v|), or one less */
	for (int tries = 0; tries < 3; tries++) {
		int k = 16 - x;
		if (k > 27 || k < -27)
			return false;
		long double a = fabsl((long double)v), s = k >= 0 ? a * pow10_exact[k] : a / pow10_exact[-k];
		long double whole = floorl(s), frac = s - whole;
		if (fabsl(frac - 0.5L) < 1.0L / 64)
			return false;
		uint64_t n = (uint64_t)whole + (uint64_t)(frac > 0.5L);
		if (n < lo || n >= hi) {   /* the estimate of x was one off, or it rounded up to 10^17 */
			x += n < lo ? -1 : 1;
			continue;
		}
		for (int i = 16; i >= 0; i--, n /= 10)
			r->d[i] = (char)('0' + n % 10);
		r->exp = x;
		r->neg = signbit(v) != 0;
		return true;
	}
#else
	(void)v, (void)r;
#endif
	return false;
}

static void real_digits(double v, struct real_digits *r)
{
	if (real_digits_fast(v, r))
		return;
	char s[40];
	snprintf(s, sizeof(s), "%.16e", v);
	const char *p = s + (s[0] == '-');
	r->neg = s[0] == '-';
	r->d[0] = p[0];
	memcpy(r->d + 1, p + 2, 16);          /* "D.DDDDDDDDDDDDDDDDe+XX" */
	r->exp = atoi(p + 19);
}

/* r's digits rounded to prec (<= 17) into d, the exponent into *x.  Rounding the 17 digits
 * gives the digits "%.*g" rounds from the exact value, except when they end in a tie (5 and
 * zeros): then the exact value decides, and this returns false. */
static bool round_digits(const struct real_digits *r, int prec, char d[17], int *x)
{
	char next = prec < 17 ? r->d[prec] : '0';
	bool rest = false;

	memcpy(d, r->d, (size_t)prec);
	*x = r->exp;
	for (int i = prec + 1; i < 17; i++)
		rest = rest || r->d[i] != '0';
	if (next == '5' && !rest)
		return false;
	if (next < '5')
		return true;
	int i = prec - 1;
	while (i >= 0 && d[i] == '9')
		d[i--] = '0';
	if (i >= 0) {
		d[i]++;
	} else {   /* 99..9 up to 100..0 */
		d[0] = '1';
		(*x)++;
	}
	return true;
}

/* s as "%.*g" writes prec significant digits d of exponent x: plain between 1e-4 and 1e<prec>,
 * else D.DDDe+XX; trailing zeros of the fraction and a bare point left out. */
static void g_format(char s[40], bool neg, const char *d, int prec, int x)
{
	size_t n = 0;
	int nd = prec;
	while (nd > 1 && d[nd - 1] == '0')
		nd--;
	if (neg)
		s[n++] = '-';
	if (x >= -4 && x < prec) {
		int lead = x >= 0 ? x + 1 : 0;   /* digits before the point */
		for (int i = 0; i < lead; i++)
			s[n++] = i < nd ? d[i] : '0';
		if (lead == 0)
			s[n++] = '0';
		if (nd > lead)
			s[n++] = '.';
		for (int i = 0; i < -x - 1; i++)
			s[n++] = '0';
		for (int i = lead; i < nd; i++)
			s[n++] = d[i];
	} else {
		unsigned ax = (unsigned)(x < 0 ? -x : x);
		s[n++] = d[0];
		if (nd > 1)
			s[n++] = '.';
		for (int i = 1; i < nd; i++)
			s[n++] = d[i];
		s[n++] = 'e';
		s[n++] = x < 0 ? '-' : '+';
		if (ax >= 100)
			s[n++] = (char)('0' + ax / 100);
		s[n++] = (char)('0' + ax / 10 % 10);
		s[n++] = (char)('0' + ax % 10);
	}
	s[n] = '\0';
}

#if LDBL_MANT_DIG >= 64
/* 2^n for n in -1074 .. 1023 (a double's range, subnormals included), from its bits. */
static long double pow2_exact(int n)
{
	uint64_t bits = n >= -1022 ? (uint64_t)(n + 1023) << 52 : 1ull << (n + 1074);
	double p;
	memcpy(&p, &bits, sizeof(p));
	return p;
}
#endif

/* Whether the candidate m * 10^k (m < 10^17) reads back (strtod, and for a float the
 * rounding to float) to v: 1 yes, 0 no, -1 too close to call (then strtod decides).  In long
 * double, m and 10^k (|k| <= 27) are exact and their product or quotient is off by 2^-64 of
 * itself; v's rounding interval, half a unit of its last place each side, is exact.  Powers
 * of two (a narrower interval below) and subnormals are left to strtod. */
static int reads_back(uint64_t m, int k, double v, bool is_float)
{
#if LDBL_MANT_DIG >= 64
	int e;
	double f = frexp(fabs(v), &e);
	if (k < -27 || k > 27 || f == 0.5 || e < (is_float ? -124 : -1020))
		return -1;
	long double a = fabs(v), t = pow10_exact[k < 0 ? -k : k];
	long double c = k >= 0 ? (long double)m * t : (long double)m / t;
	long double half = pow2_exact(e - (is_float ? 24 : 53) - 1);
	/* a float's candidate goes through a double first: keep clear of that rounding too */
	long double d = fabsl(c - a), slack = a * (is_float ? 0x1p-50L : 0x1p-60L);
	if (d < half - slack)
		return 1;
	if (d > half + slack)
		return 0;
#else
	(void)m, (void)k, (void)v, (void)is_float;
#endif
	return -1;
}

/* The "%.*g" text of v at prec digits into buf: from its digits d and exponent x when
 * round_digits made them, else (a tie) by printf. */
static void prec_text(const struct real_digits *r, double v, int prec, bool rounded, const char d[17], int x,
		      char buf[40])
{
	if (rounded)
		g_format(buf, r->neg, d, prec, x);
	else
		snprintf(buf, 40, "%.*g", prec, v);
}

/* The "%.*g" text of v at prec digits into buf. */
static void real_text(const struct real_digits *r, double v, int prec, char buf[40])
{
	char d[17];
	int x = 0;
	bool rounded = round_digits(r, prec, d, &x);
	prec_text(r, v, prec, rounded, d, x, buf);
}

/* Whether v's "%.*g" text at prec digits reads back to v; when it does, the text is in buf
 * (a candidate that does not is decided from its digits, mostly without being written). */
static bool real_candidate(const struct real_digits *r, double v, int prec, bool is_float, char buf[40])
{
	char d[17];
	int x = 0, fits = -1;
	bool rounded = round_digits(r, prec, d, &x);
	if (rounded) {
		uint64_t m = 0;
		for (int i = 0; i < prec; i++)
			m = m * 10 + (uint64_t)(d[i] - '0');
		if ((fits = reads_back(m, x - prec + 1, v, is_float)) == 0)
			return false;
	}
	prec_text(r, v, prec, rounded, d, x, buf);
	if (fits == 1)
		return true;
	double back = strtod(buf, NULL);
	return is_float ? (float)back == (float)v : back == v;
}

void dec_json_real(struct wbuf *b, double v, bool is_float)
{
	char buf[40];
	if (isnan(v)) {
		WBUF_LIT(b, "\"NaN\"");
		return;
	}
	if (isinf(v)) {
		if (v < 0)
			WBUF_LIT(b, "\"-Infinity\"");
		else
			WBUF_LIT(b, "\"Infinity\"");
		return;
	}
	int first = is_float ? 6 : 15;
	if (fabs(v) < (is_float ? 1e6 : 1e15) && v == (double)(int64_t)v) {
		/* a whole number of at most `first` digits: "%.*g" at the first precision writes
		 * its digits (no exponent, no point) and reads back exactly */
		if (v == 0 && signbit(v))
			wbuf_u8(b, '-');
		dec_json_i64(b, (int64_t)v);
		return;
	}
	/* the shortest "%.*g" from `first` digits up that reads back to v; the candidates made
	 * from one conversion to 17 digits (printf only for a tie) */
	struct real_digits r;
	int e2, prec = first;
	real_digits(v, &r);
	/* A double that is no power of two rounds from an interval symmetric about it, and a
	 * candidate of more digits lies at least as close to it: when 16 digits do not read
	 * back, 15 do not either, and 17 always do.  So the double that needs all 17 (most
	 * values that are not round) costs one test instead of three, one that reads back at 16
	 * two (15 is the only shorter text); the text is the same. */
	if (!is_float && frexp(fabs(v), &e2) != 0.5) {
		char shorter[40];
		if (!real_candidate(&r, v, 16, false, buf))
			real_text(&r, v, 17, buf);
		else if (real_candidate(&r, v, 15, false, shorter))   /* 16 read back: only 15 is left to try */
			memcpy(buf, shorter, sizeof(shorter));
		wbuf_put(b, buf, strlen(buf));
		return;
	}
	while (prec < 17 && !real_candidate(&r, v, prec, is_float, buf))
		prec++;
	if (prec == 17)
		real_text(&r, v, 17, buf);
	wbuf_put(b, buf, strlen(buf));
}

void dec_prim_json(struct wbuf *b, uint8_t t, const uint8_t *p)
{
	uint32_t u;
	uint64_t q;
	float f;
	double d;

	switch (t) {
	case 'Z': if (p[0]) WBUF_LIT(b, "true"); else WBUF_LIT(b, "false"); return;
	case 'B': dec_json_i64(b, (int8_t)p[0]); return;
	case 'C': json_char(b, ld_u16le(p)); return;
	case 'S': dec_json_i64(b, (int16_t)ld_u16le(p)); return;
	case 'I': dec_json_i64(b, (int32_t)ld_u32le(p)); return;
	case 'J': dec_json_long(b, (int64_t)ld_u64le(p)); return;
	case 'F':
		u = ld_u32le(p);
		memcpy(&f, &u, sizeof(f));
		dec_json_real(b, f, true);
		return;
	case 'D':
		q = ld_u64le(p);
		memcpy(&d, &q, sizeof(d));
		dec_json_real(b, d, false);
		return;
	default:
		WBUF_LIT(b, "null");
	}
}

/* Days since 1970-01-01 to year/month/day (H. Hinnant's civil_from_days). */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	uint64_t doe = (uint64_t)(days - era * 146097);
	uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	uint64_t mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* v (< 10^width) in exactly width digits, zeros in front (printf's %0*u without printf: a
 * time is written per time field of every object). */
static void put_digits(struct wbuf *out, unsigned v, unsigned width)
{
	char t[3];
	for (unsigned i = width; i-- > 0; v /= 10)
		t[i] = (char)('0' + v % 10);
	wbuf_put(out, t, width);
}

/* sep and v (< 100) in two digits. */
static void put_digits2(struct wbuf *out, char sep, unsigned v)
{
	wbuf_u8(out, (uint8_t)sep);
	put_digits(out, v, 2);
}

void dec_time_iso(int64_t ms, struct wbuf *out)
{
	int64_t s = ms / 1000, frac = ms % 1000;
	if (frac < 0) {
		frac += 1000;
		s--;
	}
	int64_t days = s / 86400, sec = s % 86400;
	if (sec < 0) {
		sec += 86400;
		days--;
	}
	int64_t y;
	unsigned mo, d;
	civil(days, &y, &mo, &d);
	if (y < 0 || y > 9999) {
		wbuf_printf(out, "%04lld", (long long)y);
	} else {
		put_digits(out, (unsigned)y / 100, 2);
		put_digits(out, (unsigned)y % 100, 2);
	}
	put_digits2(out, '-', mo);
	put_digits2(out, '-', d);
	put_digits2(out, 'T', (unsigned)(sec / 3600));
	put_digits2(out, ':', (unsigned)(sec / 60 % 60));
	put_digits2(out, ':', (unsigned)(sec % 60));
	if (frac) {
		wbuf_u8(out, '.');
		put_digits(out, (unsigned)frac, 3);
	}
	wbuf_u8(out, 'Z');
}

/* ---- JSON ---- */

/* A char as a one-character string; a surrogate half, which is no character on its own (and
 * which jq refuses as a lone \ud8xx escape), as its UTF-16 unit number. */
static void json_char(struct wbuf *out, int64_t unit)
{
	struct wbuf one;
	if (unit >= 0xd800 && unit <= 0xdfff) {
		dec_json_i64(out, unit);
		return;
	}
	if (unit >= 0 && unit < 0x80) {   /* ASCII: its own UTF-8, no buffer to grow */
		uint8_t c = (uint8_t)unit;
		escape_json_quoted(out, &c, 1);
		return;
	}
	wbuf_init(&one);
	wbuf_utf8(&one, (uint32_t)unit);
	if (one.failed)
		WBUF_LIT(out, "null");
	else
		escape_json_quoted(out, one.data, one.len);
	wbuf_release(&one);
}

static void json_time(struct wbuf *out, const struct dec_value *v)
{
	WBUF_LIT(out, ",\"utc\":\"");
	dec_time_iso(v->time_ms, out);
	WBUF_LIT(out, "\",\"inferred\":true");
}

static void json_text(struct wbuf *out, const char *key, const struct dec_value *v)
{
	WBUF_LIT(out, ",\"");
	wbuf_str(out, key);
	WBUF_LIT(out, "\":");
	if (v->text)
		escape_json_quoted(out, (const uint8_t *)v->text, v->text_len);
	else
		WBUF_LIT(out, "null");
	if (v->text_cut)
		WBUF_LIT(out, ",\"cut\":true");
	if (!v->text && v->why) {
		WBUF_LIT(out, ",\"why\":");
		escape_json_quoted(out, (const uint8_t *)v->why, strlen(v->why));
	}
}

/* The primitive value of kind k (i or r) as JSON. */
static void json_prim(struct wbuf *out, unsigned k, int64_t i, double r)
{
	switch (k) {
	case DEC_BOOL: if (i) WBUF_LIT(out, "true"); else WBUF_LIT(out, "false"); return;
	case DEC_CHAR: json_char(out, i); return;
	case DEC_LONG: dec_json_long(out, i); return;
	case DEC_FLOAT: dec_json_real(out, r, true); return;
	case DEC_DOUBLE: dec_json_real(out, r, false); return;
	default: dec_json_i64(out, i); return;
	}
}

/* v as JSON, a reference object left open (no closing brace) when open is true. */
static void value_json(const struct dec_value *v, struct wbuf *out, bool open)
{
	switch (v->kind) {
	case DEC_NULL:
	case DEC_UNREAD:
		WBUF_LIT(out, "null");
		return;
	case DEC_REF:
		if (!open) {
			dec_json_hex(out, v->addr);
			return;
		}
		WBUF_LIT(out, "{\"addr\":");
		dec_json_hex(out, v->addr);
		WBUF_LIT(out, ",\"class\":");
		if (v->ref_class)
			escape_json_quoted(out, (const uint8_t *)v->ref_class, strlen(v->ref_class));
		else
			WBUF_LIT(out, "null");
		return;
	case DEC_STRING:
	case DEC_ENUM:
	case DEC_BOXED:
		WBUF_LIT(out, "{\"addr\":");
		dec_json_hex(out, v->addr);
		if (v->kind == DEC_STRING) {
			json_text(out, "text", v);
			if (v->outside)
				WBUF_LIT(out, ",\"outside\":true");
		} else if (v->kind == DEC_ENUM) {
			json_text(out, "enum", v);
			WBUF_LIT(out, ",\"ordinal\":");
			dec_json_i64(out, v->i);
		} else {
			WBUF_LIT(out, ",\"value\":");
			json_prim(out, v->boxed, v->i, v->r);
			if (v->has_time)
				json_time(out, v);
		}
		break;
	default:
		json_prim(out, v->kind, v->i, v->r);
		return;
	}
	if (!open)
		wbuf_u8(out, '}');
}

void dec_value_json(const struct dec_value *v, struct wbuf *out)
{
	value_json(v, out, false);
}

/* ---- objects as JSON ---- */

struct dj {
	struct dec *d;
	struct wbuf *out;
	struct wbuf *times;         /* this level's "inferred_times" members */
	unsigned depth;
	bool first;
};

static int object_json(struct dec *d, size_t obj, unsigned depth, struct wbuf *out, struct err *e);

/* A value, with the referenced object nested while depth lasts. */
static int nested_json(struct dj *j, const struct dec_value *v, struct err *e)
{
	if (!j->depth || v->kind != DEC_REF || v->obj == MODEL_NONE) {
		value_json(v, j->out, false);
		return 0;
	}
	size_t obj = v->obj;
	value_json(v, j->out, true);
	if (j->d->seen[obj] == j->d->call) {
		WBUF_LIT(j->out, ",\"seen\":true}");
		return 0;
	}
	WBUF_LIT(j->out, ",\"object\":");
	int rc = object_json(j->d, obj, j->depth - 1, j->out, e);
	wbuf_u8(j->out, '}');
	return rc;
}

static int field_json(void *arg, const struct dec_value *v, struct err *e)
{
	struct dj *j = arg;
	if (!j->first)
		wbuf_u8(j->out, ',');
	j->first = false;
	wbuf_put(j->out, v->json_key, v->json_key_len);
	if (v->has_time && v->kind != DEC_BOXED) {
		wbuf_u8(j->times, j->times->len ? ',' : '{');
		escape_json_quoted(j->times, (const uint8_t *)v->name, strlen(v->name));
		WBUF_LIT(j->times, ":\"");
		dec_time_iso(v->time_ms, j->times);
		wbuf_u8(j->times, '"');
	}
	return nested_json(j, v, e);
}

static int fields_json_at(struct dec *d, size_t obj, unsigned depth, struct wbuf *out, struct err *e)
{
	struct wbuf times;
	struct dj j = { .d = d, .out = out, .times = &times, .depth = depth, .first = true };
	int rc;

	wbuf_init(&times);
	WBUF_LIT(out, ",\"fields\":{");
	rc = dec_each_field(d, obj, field_json, &j, e);
	wbuf_u8(out, '}');
	if (rc == 0 && times.len) {
		WBUF_LIT(out, ",\"inferred_times\":");
		wbuf_put(out, times.data, times.len);
		wbuf_u8(out, '}');
	}
	if (rc == 0 && times.failed)
		rc = dec_nomem(e);
	wbuf_release(&times);
	return rc;
}

int dec_fields_json(struct dec *d, size_t obj, struct wbuf *out, struct err *e)
{
	return fields_json_at(d, obj, 0, out, e);
}

static int entry_json(void *arg, const struct dec_entry *en, struct err *e)
{
	struct dj *j = arg;
	int rc;
	if (!j->first)
		wbuf_u8(j->out, ',');
	j->first = false;
	if (!en->has_key)
		return nested_json(j, &en->value, e);
	WBUF_LIT(j->out, "{\"key\":");
	if ((rc = nested_json(j, &en->key, e)))
		return rc;
	WBUF_LIT(j->out, ",\"value\":");
	rc = nested_json(j, &en->value, e);
	wbuf_u8(j->out, '}');
	return rc;
}

static int entries_json_at(struct dec *d, size_t obj, unsigned depth, struct wbuf *out, struct err *e)
{
	struct dec_entries info;
	struct wbuf items;
	struct dj j = { .d = d, .out = &items, .depth = depth, .first = true };
	int rc;

	wbuf_init(&items);
	if ((rc = dec_each_entry(d, obj, entry_json, &j, &info, e)) == 0 && info.kind) {
		WBUF_LIT(out, ",\"entries\":{\"kind\":\"");
		wbuf_put(out, info.kind, strlen(info.kind));
		WBUF_LIT(out, "\",\"size\":");
		dec_json_u64(out, info.size);
		WBUF_LIT(out, ",\"given\":");
		dec_json_u64(out, info.given);
		if (info.incomplete) {
			WBUF_LIT(out, ",\"incomplete\":");
			escape_json_quoted(out, (const uint8_t *)info.incomplete, strlen(info.incomplete));
		}
		WBUF_LIT(out, ",\"items\":[");
		wbuf_put(out, items.data, items.len);
		WBUF_LIT(out, "]}");
		if (items.failed)
			rc = dec_nomem(e);
	}
	wbuf_release(&items);
	return rc;
}

int dec_entries_json(struct dec *d, size_t obj, struct wbuf *out, struct err *e)
{
	return entries_json_at(d, obj, 0, out, e);
}

static void state_json(const struct model_obj *o, struct wbuf *out)
{
	WBUF_LIT(out, ",\"state\":\"");
	const char *s[3] = {model_alloc_name(o->alloc), model_content_name(o->content), model_reach_name(o->reach)};
	for (int i = 0; i < 3; i++) {
		if (i)
			wbuf_u8(out, '/');
		wbuf_put(out, s[i], strlen(s[i]));
	}
	wbuf_u8(out, '"');
}

static int object_json(struct dec *d, size_t obj, unsigned depth, struct wbuf *out, struct err *e)
{
	const struct model_obj *o = model_obj(d->m, obj);
	const char *cname = d->rt->classes[o->cls].name;
	const struct dec_plan *p;
	int rc;

	d->seen[obj] = d->call;
	WBUF_LIT(out, "{\"addr\":");
	dec_json_hex(out, model_va(d->m, o));
	WBUF_LIT(out, ",\"class\":");
	if (cname)
		escape_json_quoted(out, (const uint8_t *)cname, strlen(cname));
	else
		WBUF_LIT(out, "null");
	state_json(o, out);
	if ((rc = dec_plan_of(d, o->cls, &p, e)))
		return rc;
	if (o->kind != MODEL_OBJ_ARRAY && o->kind != MODEL_PRIM_ARRAY && (rc = fields_json_at(d, obj, depth, out, e)))
		return rc;
	if ((rc = entries_json_at(d, obj, depth, out, e)))
		return rc;
	if (p->special == DEC_S_STRING) {
		struct dec_value v = { .obj = obj };
		if ((rc = dec_ref_value(d, o->addr, 0, &v, e)))
			return rc;
		json_text(out, "text", &v);
	}
	wbuf_u8(out, '}');
	return 0;
}

int dec_object_json(struct dec *d, size_t obj, unsigned depth, struct wbuf *out, struct err *e)
{
	if (depth > DEC_MAX_DEPTH)
		depth = DEC_MAX_DEPTH;
	if (!d->seen && !(d->seen = xcalloc(model_count(d->m) ? model_count(d->m) : 1, sizeof(*d->seen))))
		return dec_nomem(e);
	if (++d->call == 0) {   /* wrapped: forget every stamp */
		memset(d->seen, 0, (model_count(d->m) ? model_count(d->m) : 1) * sizeof(*d->seen));
		d->call = 1;
	}
	int rc = object_json(d, obj, depth, out, e);
	return rc ? rc : wbuf_status(out, e);
}

/* ---- text ---- */

static const char *short_class(const char *name)
{
	const char *dot = name ? strrchr(name, '.') : NULL;
	return dot ? dot + 1 : name ? name : "?";
}

static void text_quoted(struct wbuf *out, const struct dec_value *v)
{
	if (!v->text) {
		WBUF_LIT(out, "?");
		return;
	}
	wbuf_u8(out, '"');
	escape_json(out, (const uint8_t *)v->text, v->text_len);
	if (v->text_cut)
		WBUF_LIT(out, "...");
	wbuf_u8(out, '"');
}

/* A char as text, 'c': JSON's escapes for controls, a backslash and a double quote, \' for a
 * single quote; a surrogate half, no character on its own, as its unit ('\uD83D'). */
static void text_char(struct wbuf *out, int64_t unit)
{
	wbuf_u8(out, '\'');
	if (unit >= 0xd800 && unit <= 0xdfff) {
		wbuf_printf(out, "\\u%04llX", (unsigned long long)unit);
	} else if (unit == '\'') {
		WBUF_LIT(out, "\\'");
	} else if (unit >= 0 && unit < 0x80) {
		uint8_t c = (uint8_t)unit;
		escape_json(out, &c, 1);
	} else {
		wbuf_utf8(out, (uint32_t)unit);
	}
	wbuf_u8(out, '\'');
}

void dec_value_text(const struct dec_value *v, struct wbuf *out)
{
	switch (v->kind) {
	case DEC_NULL: WBUF_LIT(out, "null"); return;
	case DEC_UNREAD: WBUF_LIT(out, "?"); return;
	case DEC_STRING: text_quoted(out, v); return;
	case DEC_ENUM:
		if (v->text)
			escape_json(out, (const uint8_t *)v->text, v->text_len);
		else
			wbuf_printf(out, "%s#%lld", short_class(v->ref_class), (long long)v->i);
		return;
	case DEC_REF: wbuf_printf(out, "%s@0x%llx", short_class(v->ref_class), (unsigned long long)v->addr); return;
	case DEC_CHAR: text_char(out, v->i); return;
	default: break;
	}
	if (v->has_time) {
		dec_time_iso(v->time_ms, out);
		return;
	}
	unsigned k = v->kind == DEC_BOXED ? v->boxed : v->kind;
	if (k == DEC_LONG)
		dec_json_i64(out, v->i);   /* text: no quotes for big longs */
	else
		json_prim(out, k, v->i, v->r);
}

struct dt {
	struct dec *d;
	struct wbuf *out;
	size_t stop;                /* out->len past which nothing more is added */
	unsigned nested;            /* 0: the object's own fields; 1: a referenced object's */
	unsigned shown;
};

static int text_ref(struct dt *t, const struct dec_value *v, struct err *e);

static int field_text(void *arg, const struct dec_value *v, struct err *e)
{
	struct dt *t = arg;
	if (t->out->len >= t->stop)
		return 1;
	if (t->nested && v->kind != DEC_STRING && v->kind != DEC_ENUM)
		return 0;
	if (v->kind == DEC_NULL || v->kind == DEC_UNREAD || !strncmp(v->name, "shadow$_", 8))
		return 0;   /* java.lang.Object's lock word is no content */
	if (t->shown++)
		wbuf_u8(t->out, t->nested ? ',' : ' ');
	wbuf_printf(t->out, "%s=", v->name);
	if (!t->nested && v->kind == DEC_REF && v->obj != MODEL_NONE)
		return text_ref(t, v, e);
	dec_value_text(v, t->out);
	return t->nested && t->shown >= DEC_TEXT_FIELDS_NESTED ? 1 : 0;
}

static int text_ref_fields(struct dt *t, size_t obj, struct err *e)
{
	struct dt in = { .d = t->d, .out = t->out, .stop = t->stop, .nested = 1 };
	int rc = dec_each_field(t->d, obj, field_text, &in, e);
	return rc < 0 ? rc : 0;
}

/* A referenced object as Class{its String fields}. */
static int text_ref(struct dt *t, const struct dec_value *v, struct err *e)
{
	size_t obj = v->obj;
	wbuf_printf(t->out, "%s{", short_class(v->ref_class));
	int rc = text_ref_fields(t, obj, e);
	wbuf_u8(t->out, '}');
	return rc;
}

static int entry_text(void *arg, const struct dec_entry *en, struct err *e)
{
	struct dt *t = arg;
	if (t->out->len >= t->stop)
		return 1;
	if (t->shown++)
		WBUF_LIT(t->out, ", ");
	if (en->has_key) {
		dec_value_text(&en->key, t->out);
		wbuf_u8(t->out, '=');
	}
	if (en->value.kind == DEC_REF && en->value.obj != MODEL_NONE)
		return text_ref(t, &en->value, e);
	dec_value_text(&en->value, t->out);
	return 0;
}

/* Cuts out back to start + max bytes at a character boundary, with "..." when cut. */
static void cut_text(struct wbuf *out, size_t start, size_t max)
{
	if (out->len - start <= max)
		return;
	size_t n = start + max;
	while (n > start && (out->data[n] & 0xc0) == 0x80)
		n--;
	out->len = n;
	WBUF_LIT(out, "...");
}

int dec_object_text(struct dec *d, size_t obj, size_t max_chars, struct wbuf *out, struct err *e)
{
	const struct model_obj *o = model_obj(d->m, obj);
	const struct dec_plan *p;
	size_t start = out->len;
	struct dt t = { .d = d, .out = out, .stop = start + max_chars };
	struct dec_entries info;
	int rc;

	if ((rc = dec_plan_of(d, o->cls, &p, e)))
		return rc;
	if (p->special == DEC_S_STRING) {
		struct dec_value v = { .obj = obj };
		if ((rc = dec_ref_value(d, o->addr, 0, &v, e)))
			return rc;
		text_quoted(out, &v);
	} else if (p->special == DEC_S_CONTAINER || o->kind == MODEL_OBJ_ARRAY || o->kind == MODEL_PRIM_ARRAY) {
		struct wbuf items;
		wbuf_init(&items);
		t.out = &items;
		t.stop = max_chars;
		rc = dec_each_entry(d, obj, entry_text, &t, &info, e);
		if (rc >= 0) {
			wbuf_printf(out, info.keyed ? "{%llu} " : "[%llu] ", (unsigned long long)info.size);
			wbuf_put(out, items.data, items.len);
			if (items.failed)
				rc = dec_nomem(e);
		}
		wbuf_release(&items);
		if (rc < 0)
			return rc;
	} else if ((rc = dec_each_field(d, obj, field_text, &t, e)) < 0) {
		return rc;
	}
	cut_text(out, start, max_chars);
	return wbuf_status(out, e);
}

int dec_ref_text(struct dec *d, const struct dec_value *v, size_t max_chars, struct wbuf *out, struct err *e)
{
	const char *cls = v->ref_class ? v->ref_class : "?";
	const struct dec_plan *p;
	size_t start = out->len;
	int rc;

	if (v->kind != DEC_REF || v->obj == MODEL_NONE) {
		dec_value_text(v, out);
		return wbuf_status(out, e);
	}
	const struct model_obj *o = model_obj(d->m, v->obj);
	if (o->kind == MODEL_PRIM_ARRAY) {   /* its numbers say little in a cell: type and length */
		const char *br = strchr(cls, '[');
		wbuf_printf(out, "%.*s[%u]", (int)(br ? br - cls : (ptrdiff_t)strlen(cls)), cls, model_length(d->m, o));
		return wbuf_status(out, e);
	}
	if ((rc = dec_plan_of(d, o->cls, &p, e)))
		return rc;
	if (p->special == DEC_S_STRING || p->special == DEC_S_CONTAINER || o->kind == MODEL_OBJ_ARRAY)
		return dec_object_text(d, v->obj, max_chars, out, e);
	if (o->kind != MODEL_INSTANCE) {   /* a Class: its name says it */
		wbuf_put(out, cls, strlen(cls));
		return wbuf_status(out, e);
	}
	struct dt t = { .d = d, .out = out, .stop = start + max_chars };
	wbuf_printf(out, "%s{", short_class(cls));
	size_t inside = out->len;
	if ((rc = text_ref_fields(&t, v->obj, e)) < 0)
		return rc;
	if (out->len > inside) {
		wbuf_u8(out, '}');
	} else {   /* no String or enum field to show: the class alone */
		out->len = start;
		wbuf_put(out, cls, strlen(cls));
	}
	cut_text(out, start, max_chars);
	return wbuf_status(out, e);
}
