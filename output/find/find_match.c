/* find_match.c - the indicator matchers (see find_match.h).
 *
 * Every matcher gets the text from its start position with n characters left (already
 * bounded by FIND_MATCH_MAX) and returns the length it matched, 0 for none.  The rules lean
 * to missing an odd form over reporting noise: a false indicator costs an investigator time,
 * and a heap holds millions of digit runs, dotted version strings and C++ names. */
#include "output/find/find_match.h"

#include <string.h>

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static bool is_alpha(uint8_t c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static bool is_alnum(uint8_t c) { return is_digit(c) || is_alpha(c); }
static bool is_hex(uint8_t c) { return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }
static uint8_t lower(uint8_t c) { return is_alpha(c) ? (uint8_t)(c | 0x20) : c; }

/* base64url alphabet (RFC 4648 5) */
static bool is_b64url(uint8_t c) { return is_alnum(c) || c == '-' || c == '_'; }
/* token68 (RFC 7235 2.1) without the trailing '=' */
static bool is_token68(uint8_t c) { return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'; }
static bool is_label(uint8_t c) { return is_alnum(c) || c == '-'; }
static bool is_local(uint8_t c) { return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'; }

/* RFC 3986 unreserved, reserved and '%' */
static bool is_url_char(uint8_t c)
{
	return is_alnum(c) || (c && strchr("-._~:/?#[]@!$&'()*+,;=%", c));
}

/* True when p[0, n) starts with the ASCII word w in any case. */
static bool has_prefix_ci(const uint8_t *p, size_t n, const char *w)
{
	size_t k = strlen(w);
	if (k > n)
		return false;
	for (size_t i = 0; i < k; i++)
		if (lower(p[i]) != (uint8_t)w[i])
			return false;
	return true;
}

/* Length of a run of characters that pass ok, from p (at most n). */
static size_t run(const uint8_t *p, size_t n, bool (*ok)(uint8_t))
{
	size_t i = 0;
	while (i < n && ok(p[i]))
		i++;
	return i;
}

/* ---- IPv4 ---- */

/* A decimal octet 0-255 without a leading zero: its length, 0 for none. */
static size_t octet(const uint8_t *p, size_t n)
{
	size_t k = run(p, n < 4 ? n : 4, is_digit);
	unsigned v = 0;
	if (k == 0 || k > 3 || (k > 1 && p[0] == '0'))
		return 0;
	for (size_t i = 0; i < k; i++)
		v = v * 10 + (unsigned)(p[i] - '0');
	return v <= 255 ? k : 0;
}

/* Four octets joined by '.' (the end checks are the caller's). */
static size_t ipv4_body(const uint8_t *p, size_t n)
{
	size_t i = 0;
	for (int part = 0; part < 4; part++) {
		size_t k;
		if (part) {
			if (i >= n || p[i] != '.')
				return 0;
			i++;
		}
		if (!(k = octet(p + i, n - i)))
			return 0;
		i += k;
	}
	return i;
}

static size_t m_ipv4(const uint8_t *p, size_t n)
{
	size_t k = ipv4_body(p, n);
	if (!k || (k < n && (is_alnum(p[k]) || (p[k] == '.' && k + 1 < n && is_digit(p[k + 1])))))
		return 0;
	return k;
}

/* ---- URL ---- */

/* True when h[0, n) is a host name: labels [A-Za-z0-9-] (not starting or ending with '-')
 * joined by '.', at least two, the last all letters (2+); or "localhost"; or an IPv4 address. */
static bool host_ok(const uint8_t *h, size_t n)
{
	size_t labels = 0, last = 0;
	if (n == 9 && has_prefix_ci(h, n, "localhost"))
		return true;
	if (n && ipv4_body(h, n) == n)
		return true;
	for (size_t i = 0; i < n;) {
		size_t k = run(h + i, n - i, is_label);
		if (k == 0 || h[i] == '-' || h[i + k - 1] == '-')
			return false;
		labels++;
		last = i;
		i += k;
		if (i < n && h[i++] != '.')
			return false;
		if (i == n && h[n - 1] == '.')
			return false;
	}
	return labels >= 2 && n - last >= 2 && run(h + last, n - last, is_alpha) == n - last;
}

static size_t m_url(const uint8_t *p, size_t n)
{
	static const char *const schemes[] = { "https://", "http://", "ftp://", "wss://", "ws://" };
	size_t s = 0, end, auth_end, host, host_end;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]) && !s; i++)
		if (has_prefix_ci(p, n, schemes[i]))
			s = strlen(schemes[i]);
	if (!s)
		return 0;
	end = s + run(p + s, n - s, is_url_char);
	/* the authority: up to '/', '?' or '#'; the host after the last '@', before a ':port' */
	for (auth_end = s; auth_end < end && !strchr("/?#", p[auth_end]); auth_end++)
		;
	host = s;
	for (size_t i = s; i < auth_end; i++)
		if (p[i] == '@')
			host = i + 1;
	for (host_end = host; host_end < auth_end && p[host_end] != ':'; host_end++)
		;
	if (host_end < auth_end && run(p + host_end + 1, auth_end - host_end - 1, is_digit) != auth_end - host_end - 1)
		return 0;
	if (!host_ok(p + host, host_end - host))
		return 0;
	while (end > auth_end && strchr(".,;:!?'\")]", p[end - 1]))
		end--;
	if (end == auth_end && end > host_end && strchr(".,;:!?'\")]", p[end - 1]))
		end = host_end;   /* "http://a.com:" ends at the host */
	return end;
}

/* ---- JWT and bearer tokens ---- */

static int b64url_value(uint8_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (is_digit(c))
		return c - '0' + 52;
	return c == '-' ? 62 : 63;
}

/* True when the base64url text p[0, n) decodes to a JSON object that holds the key "alg"
 * (a JOSE header, RFC 7515 4.1.1); only its first 512 characters are decoded. */
static bool jose_header(const uint8_t *p, size_t n)
{
	uint8_t out[384];
	size_t o = 0;
	uint32_t acc = 0;
	unsigned bits = 0;
	if (n > 512)
		n = 512;
	for (size_t i = 0; i < n; i++) {
		acc = acc << 6 | (uint32_t)b64url_value(p[i]);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	if (o < 2 || out[0] != '{')
		return false;
	for (size_t i = 0; i + 5 <= o; i++)
		if (!memcmp(out + i, "\"alg\"", 5))
			return true;
	return false;
}

static size_t m_jwt(const uint8_t *p, size_t n)
{
	size_t a, b, c, end;
	if (!has_prefix_ci(p, n, "eyj") || p[0] != 'e' || p[2] != 'J')
		return 0;
	a = run(p, n, is_b64url);
	if (a < 10 || a >= n || p[a] != '.')
		return 0;
	b = run(p + a + 1, n - a - 1, is_b64url);
	if (b < 2 || a + 1 + b >= n || p[a + 1 + b] != '.')
		return 0;
	c = run(p + a + 2 + b, n - a - 2 - b, is_b64url);
	end = a + 2 + b + c;
	if (end < n && (p[end] == '.' || p[end] == '=' || is_b64url(p[end])))
		return 0;
	return jose_header(p, a) ? end : 0;
}

enum { BEARER_MIN = 16 };

/* "Bearer TOKEN": the token's start in *tok, the whole length returned. */
static size_t m_bearer(const uint8_t *p, size_t n, size_t *tok)
{
	size_t i = 6, k;
	if (!has_prefix_ci(p, n, "bearer") || i >= n || p[i] != ' ')
		return 0;
	while (i < n && p[i] == ' ')
		i++;
	k = run(p + i, n - i, is_token68);
	if (k < BEARER_MIN)
		return 0;
	*tok = i;
	i += k;
	while (i < n && p[i] == '=')
		i++;
	return i < n && is_alnum(p[i]) ? 0 : i;
}

/* ---- e-mail ---- */

/* A domain: labels joined by '.', at least two, the last 2-24 letters. */
static size_t domain(const uint8_t *p, size_t n)
{
	size_t i = 0, labels = 0, last = 0, end = 0;
	while (i < n) {
		size_t k = run(p + i, n - i < 63 ? n - i : 63, is_label);
		if (k == 0 || p[i] == '-' || p[i + k - 1] == '-')
			break;
		labels++;
		last = i;
		end = i + k;
		i = end;
		if (i + 1 >= n || p[i] != '.' || !is_label(p[i + 1]))
			break;
		i++;
	}
	if (labels < 2 || end - last < 2 || end - last > 24 || run(p + last, end - last, is_alpha) != end - last)
		return 0;
	return end < n && (is_label(p[end]) || p[end] == '@') ? 0 : end;
}

static size_t m_email(const uint8_t *p, size_t n)
{
	size_t k = run(p, n < 65 ? n : 65, is_local), d;
	if (k == 0 || k > 64 || k >= n || p[k] != '@' || p[0] == '.' || p[k - 1] == '.')
		return 0;
	d = domain(p + k + 1, n - k - 1);
	return d ? k + 1 + d : 0;
}

/* ---- card numbers ---- */

bool find_luhn(const uint8_t *d, size_t n)
{
	unsigned sum = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned v = (unsigned)(d[n - 1 - i] - '0');
		if (i & 1)
			v = v * 2 > 9 ? v * 2 - 9 : v * 2;
		sum += v;
	}
	return n && sum % 10 == 0;
}

/* The first k digits as a number. */
static unsigned prefix(const uint8_t *d, size_t k)
{
	unsigned v = 0;
	for (size_t i = 0; i < k; i++)
		v = v * 10 + (unsigned)(d[i] - '0');
	return v;
}

/* Issuer prefixes and lengths (find_match.h). */
static bool iin_ok(const uint8_t *d, size_t n)
{
	unsigned p1 = prefix(d, 1), p2 = prefix(d, 2), p3 = prefix(d, 3), p4 = prefix(d, 4);
	bool long_ok = n >= 16 && n <= 19;
	if (p1 == 4)
		return n == 13 || n == 16 || n == 19;
	if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720))
		return n == 16;
	if (p2 == 34 || p2 == 37)
		return n == 15;
	if ((p3 >= 300 && p3 <= 305) || p2 == 36 || p2 == 38 || p2 == 39)
		return n >= 14 && n <= 19;
	if (p4 == 6011 || (p3 >= 644 && p3 <= 649) || p2 == 65 || (p4 >= 3528 && p4 <= 3589) || p2 == 62)
		return long_ok;
	return false;
}

static size_t m_card(const uint8_t *p, size_t n)
{
	uint8_t d[19];
	size_t nd = 0, i = 0;
	uint8_t sep = 0;
	for (;;) {
		size_t k = run(p + i, n - i, is_digit);
		if (k == 0 || nd + k > sizeof(d))
			return 0;
		memcpy(d + nd, p + i, k);
		nd += k;
		i += k;
		if (i + 1 < n && (p[i] == ' ' || p[i] == '-') && (!sep || p[i] == sep) && is_digit(p[i + 1])) {
			sep = p[i++];
			continue;
		}
		break;
	}
	if (i < n && (is_alnum(p[i]) || ((p[i] == '.' || p[i] == ',') && i + 1 < n && is_digit(p[i + 1]))))
		return 0;
	if (nd < 13)
		return 0;
	for (size_t j = 1; j < nd; j++)
		if (d[j] != d[0])
			return find_luhn(d, nd) && iin_ok(d, nd) ? i : 0;
	return 0;   /* all digits equal */
}

/* ---- phone numbers ---- */

/* After a phone number: nothing that would continue it. */
static bool phone_end(const uint8_t *p, size_t n, size_t i)
{
	return i >= n || !(is_alnum(p[i]) || ((p[i] == '-' || p[i] == '.' || p[i] == ' ') && i + 1 < n && is_digit(p[i + 1])));
}

static size_t m_e164(const uint8_t *p, size_t n)
{
	size_t i = 1, nd = 0;
	if (n < 2 || p[0] != '+' || p[1] < '1' || p[1] > '9')
		return 0;
	while (i < n) {
		if (is_digit(p[i])) {
			nd++;
			i++;
		} else if (p[i] == '(') {   /* "+44 (20) ..." */
			size_t k = run(p + i + 1, n - i - 1, is_digit);
			if (k == 0 || k > 4 || i + 1 + k >= n || p[i + 1 + k] != ')')
				break;
			nd += k;
			i += k + 2;
			if (i < n && p[i] == ' ')
				i++;
		} else if ((p[i] == ' ' || p[i] == '-' || p[i] == '.') && i + 1 < n && (is_digit(p[i + 1]) || p[i + 1] == '(')) {
			i++;
		} else {
			break;
		}
		if (nd > 15)
			return 0;
	}
	while (i > 1 && !is_digit(p[i - 1]))
		i--;
	return nd >= 8 && phone_end(p, n, i) ? i : 0;
}

/* NXX: three digits, the first 2-9 */
static bool nxx(const uint8_t *p, size_t n)
{
	return n >= 3 && p[0] >= '2' && p[0] <= '9' && is_digit(p[1]) && is_digit(p[2]);
}

static size_t m_nanp(const uint8_t *p, size_t n)
{
	size_t i;
	uint8_t sep;
	if (p[0] == '(') {
		if (!nxx(p + 1, n - 1) || n < 5 || p[4] != ')')
			return 0;
		i = n > 5 && p[5] == ' ' ? 6 : 5;
		sep = '-';
	} else {
		if (!nxx(p, n) || n < 4 || (p[3] != '-' && p[3] != '.'))
			return 0;
		sep = p[3];
		i = 4;
	}
	if (!nxx(p + i, n - i) || i + 3 >= n || p[i + 3] != sep)
		return 0;
	i += 4;
	if (n - i < 4 || run(p + i, 4, is_digit) != 4)
		return 0;
	i += 4;
	return phone_end(p, n, i) ? i : 0;
}

/* ---- IPv6 ---- */

static size_t m_ipv6(const uint8_t *p, size_t n)
{
	size_t i = 0, groups = 0;
	bool dbl = false, digit = false, wide = false;
	if (n > 45)
		n = 45;
	if (n >= 2 && p[0] == ':' && p[1] == ':') {
		dbl = true;
		i = 2;
	}
	while (i < n) {
		size_t k = run(p + i, n - i, is_hex);
		if (k == 0 || k > 4)
			return k > 4 ? 0 : (dbl && i >= 2 && p[i - 1] == ':' && p[i - 2] == ':' ? i : 0);
		groups++;
		for (size_t j = i; j < i + k; j++)
			digit = digit || is_digit(p[j]);
		wide = wide || k >= 2;
		i += k;
		if (i + 1 < n && p[i] == ':' && p[i + 1] == ':') {
			if (dbl)
				return 0;
			dbl = true;
			i += 2;
		} else if (i + 1 < n && p[i] == ':' && is_hex(p[i + 1])) {
			i++;
		} else {
			break;
		}
	}
	if (i < n && (is_alnum(p[i]) || p[i] == ':' || p[i] == '.'))
		return 0;
	if (!(dbl ? groups < 8 : groups == 8) || groups < 3 || !digit || !wide)
		return 0;
	return i;
}

/* ---- the pass ---- */

static int report(find_match_fn fn, void *arg, enum find_kind k, size_t off, size_t len, struct err *e)
{
	return fn(arg, k, off, len, e);
}

/* The matchers at p (a word start): the kind and length of the first that matches; a bearer
 * token's start in *tok (its value is the token). */
static size_t match_at(const uint8_t *p, size_t n, uint8_t prev, enum find_kind *kind, size_t *tok)
{
	uint8_t c = p[0];
	size_t k;
	*tok = 0;
	if (is_alpha(c)) {
		if ((k = m_url(p, n)) && (*kind = FIND_URL, 1))
			return k;
		if (c == 'e' && (k = m_jwt(p, n)) && (*kind = FIND_JWT, 1))
			return k;
		if ((c | 0x20) == 'b' && (k = m_bearer(p, n, tok)) && (*kind = FIND_BEARER, 1))
			return k;
	}
	if (is_digit(c)) {
		if (prev != '.' && (k = m_ipv4(p, n)) && (*kind = FIND_IPV4, 1))
			return k;
		if (!(prev && strchr(".,+-_/", prev)) && (k = m_card(p, n)) && (*kind = FIND_CARD, 1))
			return k;
		if ((k = m_nanp(p, n)) && (*kind = FIND_PHONE, 1))
			return k;
	}
	if (c == '+' && !is_local(prev) && (k = m_e164(p, n)) && (*kind = FIND_PHONE, 1))
		return k;
	if (c == '(' && (k = m_nanp(p, n)) && (*kind = FIND_PHONE, 1))
		return k;
	if (is_alnum(c) && !is_local(prev) && (k = m_email(p, n)) && (*kind = FIND_EMAIL, 1))
		return k;
	if ((is_hex(c) || c == ':') && prev != ':' && prev != '.' && (k = m_ipv6(p, n)) && (*kind = FIND_IPV6, 1))
		return k;
	return 0;
}

/* Bit sets of the 256 characters: ALNUM (is_alnum), STARTS: the first characters match_at
 * tries (letters, digits, '+', '(' and ':'); the pass tests every character of the text. */
static const uint64_t ALNUM[4] = { 0x03ff000000000000ull, 0x07fffffe07fffffeull, 0, 0 };
static const uint64_t STARTS[4] = { 0x07ff090000000000ull, 0x07fffffe07fffffeull, 0, 0 };

static bool in_set(const uint64_t set[4], uint8_t c)
{
	return set[c >> 6] >> (c & 63) & 1;
}

int find_match_text(const uint8_t *text, size_t n, find_match_fn fn, void *arg, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t prev = i ? text[i - 1] : 0;
		size_t lim, tok, k;
		enum find_kind kind;
		int rc;
		if (!in_set(STARTS, text[i]) || in_set(ALNUM, prev))
			continue;   /* inside a word, or no matcher starts here */
		lim = n - i < FIND_MATCH_MAX ? n - i : FIND_MATCH_MAX;
		if (!(k = match_at(text + i, lim, prev, &kind, &tok)))
			continue;
		if ((rc = report(fn, arg, kind, i + tok, k - tok, e)))
			return rc;
		/* a bearer token that is a JWT is both */
		if (kind == FIND_BEARER && m_jwt(text + i + tok, k - tok) == k - tok &&
		    (rc = report(fn, arg, FIND_JWT, i + tok, k - tok, e)))
			return rc;
		i += k - 1;
	}
	return 0;
}

/* ---- secret field names ---- */

static bool secret_word(const char *w, size_t n)
{
	static const char *const words[] = { "password", "passwd", "token", "secret", "key", "auth", "cookie", "session" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && has_prefix_ci((const uint8_t *)w, n, words[i]))
			return true;
	return false;
}

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

bool find_secret_name(const char *name)
{
	size_t start = 0, i = 0;
	if (!name)
		return false;
	for (;; i++) {
		char c = name[i];
		bool split = !c || !is_alpha((uint8_t)c);
		/* camelCase: "authToken" splits before 'T'; "URLKey" before 'K' (an upper followed by lower) */
		bool upper_start = i > start && is_upper(c) &&
				   (is_lower(name[i - 1]) || (is_upper(name[i - 1]) && is_lower(name[i + 1])));
		if ((split || upper_start) && i > start && secret_word(name + start, i - start))
			return true;
		if (!c)
			return false;
		start = split ? i + 1 : upper_start ? i : start;
	}
}

const char *find_kind_name(unsigned k)
{
	static const char *const names[FIND_KIND_COUNT] = { "url", "email", "phone", "ipv4", "ipv6",
							   "jwt", "bearer", "card", "secret" };
	return k < FIND_KIND_COUNT ? names[k] : "?";
}
