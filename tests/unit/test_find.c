/* test_find.c - the indicator matchers (output/find/find_match.c): for each kind, texts that
 * hold one (found with the exact value) and look-alikes that must not be reported; the Luhn
 * check; secret field names as word parts. */
#include <stdio.h>
#include <string.h>

#include "output/find/find_match.h"
#include "tests/unit/t.h"

static char got[1024];

static int collect(void *arg, enum find_kind kind, size_t off, size_t len, struct err *e)
{
	const char *text = arg;
	size_t n = strlen(got);
	(void)e;
	snprintf(got + n, sizeof(got) - n, "%s%s:%.*s", n ? " " : "", find_kind_name(kind), (int)len, text + off);
	return 0;
}

/* What the matchers report in text, as "kind:value kind:value". */
static const char *found(const char *text)
{
	struct err e;
	err_init(&e);
	got[0] = 0;
	find_match_text((const uint8_t *)text, strlen(text), collect, (void *)text, &e);
	return got;
}

#define FOUND(text, want) T_EQ_S(found(text), want)

#define JWT_HEAD "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"   /* {"alg":"HS256","typ":"JWT"} */
#define JWT JWT_HEAD ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"

int main(void)
{
	T_SECTION("url");
	FOUND("see https://chat.example.com/m/42?x=1.", "url:https://chat.example.com/m/42?x=1");
	FOUND("(http://user:pw@10.0.0.7:8080/a)", "url:http://user:pw@10.0.0.7:8080/a");
	FOUND("HTTP://localhost/x, then", "url:HTTP://localhost/x");
	FOUND("http://foo/bar", "");                    /* no dot in the host */
	FOUND("xhttps://a.com", "");                    /* not at a word start */
	FOUND("https://a.c0m/", "");                    /* the last label is not letters */

	T_SECTION("email");
	FOUND("mail alice.smith+chat@example.co.uk now", "email:alice.smith+chat@example.co.uk");
	FOUND("a@b.c", "");                             /* one-letter top-level label */
	FOUND("user@localhost", "");
	FOUND("std::vector@x", "");
	FOUND("<bob@example.com>", "email:bob@example.com");
	FOUND("x_bob@example.com", "email:x_bob@example.com");

	T_SECTION("phone");
	FOUND("call +1 415-555-0132 now", "phone:+1 415-555-0132");
	FOUND("call +44 (20) 7946 0958.", "phone:+44 (20) 7946 0958");
	FOUND("tel (415) 555-0132", "phone:(415) 555-0132");
	FOUND("tel 415.555.0132", "phone:415.555.0132");
	FOUND("+12345", "");                            /* too short */
	FOUND("id 4155550132", "");                     /* a bare digit run */
	FOUND("v 115-555-0132", "");                    /* area code starts with 1 */
	FOUND("a+14155550132", "");                     /* '+' inside a word */

	T_SECTION("ipv4");
	FOUND("from 192.168.1.20:443", "ipv4:192.168.1.20");
	FOUND("1.2.3.4.5", "");                         /* more parts: a version */
	FOUND("256.1.1.1", "");
	FOUND("01.2.3.4", "");

	T_SECTION("ipv6");
	FOUND("to 2001:db8::8a2e:370:7334 x", "ipv6:2001:db8::8a2e:370:7334");
	FOUND("fe80:0:0:0:202:b3ff:fe1e:8329", "ipv6:fe80:0:0:0:202:b3ff:fe1e:8329");
	FOUND("12:30:45", "");                          /* a time */
	FOUND("00:1a:2b:3c:4d:5e", "");                 /* a MAC address */
	FOUND("std::map", "");
	FOUND("a::b", "");

	T_SECTION("jwt and bearer");
	FOUND("t=" JWT ";", "jwt:" JWT);
	FOUND("Authorization: Bearer " JWT, "bearer:" JWT " jwt:" JWT);
	FOUND("bearer abcdefghijklmnop0123==", "bearer:abcdefghijklmnop0123==");
	FOUND("Bearer short", "");
	/* {"foo":"bar"}: a JSON header without "alg" */
	FOUND("eyJmb28iOiJiYXIifQ.eyJzdWIiOiIxIn0.abc", "");
	FOUND(JWT_HEAD ".x", "");                       /* two parts */

	T_SECTION("card");
	FOUND("card 4111 1111 1111 1111 exp", "card:4111 1111 1111 1111");
	FOUND("4111-1111-1111-1111", "card:4111-1111-1111-1111");
	FOUND("amex 378282246310005", "card:378282246310005");
	FOUND("mc 5555555555554444.", "card:5555555555554444");
	FOUND("4111111111111112", "");                  /* Luhn fails */
	FOUND("1234567812345670", "");                  /* Luhn passes, no issuer */
	FOUND("4111 1111-1111 1111", "");               /* mixed separators */
	FOUND("44444444444444444", "");
	FOUND("3.4111111111111111", "");                /* a decimal's digits */
	FOUND("41111111111111111111", "");              /* 20 digits */
	T_CHECK(find_luhn((const uint8_t *)"79927398713", 11), "Luhn example of ISO/IEC 7812");
	T_CHECK(!find_luhn((const uint8_t *)"79927398710", 11), "Luhn example, wrong check digit");

	T_SECTION("mixed text");
	FOUND("Meet at 10.1.2.3, mail bob@example.org or https://x.example.net",
	      "ipv4:10.1.2.3 email:bob@example.org url:https://x.example.net");

	T_SECTION("secret field names");
	T_CHECK(find_secret_name("password"), "password");
	T_CHECK(find_secret_name("mPassword"), "mPassword");
	T_CHECK(find_secret_name("authToken"), "authToken");
	T_CHECK(find_secret_name("API_KEY"), "API_KEY");
	T_CHECK(find_secret_name("sessionId"), "sessionId");
	T_CHECK(find_secret_name("URLKey"), "URLKey");
	T_CHECK(find_secret_name("cookie2"), "cookie2");
	T_CHECK(!find_secret_name("keyboardHeight"), "keyboardHeight");
	T_CHECK(!find_secret_name("monkey"), "monkey");
	T_CHECK(!find_secret_name("authority"), "authority");
	T_CHECK(!find_secret_name("tokenizer"), "tokenizer");
	T_CHECK(!find_secret_name(NULL), "NULL");
	T_DONE();
}
