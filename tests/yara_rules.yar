// tests/yara_rules.yar - rules for tests/shell/test_yara.sh: a plain string, a wide (UTF-16LE)
// string, a hex string, a regular expression and a condition joining two strings with `and`.
rule chat_invite : chat url
{
	strings:
		$url = "https://chat.example.com/join/"
	condition:
		$url
}

rule wide_password : secret
{
	strings:
		$pw = "hunter2" wide
	condition:
		$pw
}

rule jwt_header_hex
{
	strings:
		// "eyJhbGciOiJIUzI1NiJ9": the base64url of {"alg":"HS256"}
		$h = { 65 79 4A 68 62 47 63 69 4F 69 4A 49 55 7A 49 31 4E 69 4A 39 }
	condition:
		$h
}

rule session_regex
{
	strings:
		$re = /session-[0-9]\.[0-9a-f]{8}/
	condition:
		$re
}

rule card_and_pay
{
	strings:
		$pay = "pay with"
		$visa = "4111 1111"
	condition:
		$pay and $visa
}

// the runtime's own GC counter names (the real captures' java.lang.VMRuntime statistics keys)
rule art_gc_names
{
	strings:
		$gc = "art.gc." ascii wide
	condition:
		$gc
}
