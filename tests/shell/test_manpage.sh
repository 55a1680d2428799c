# tier: quick
# test_manpage.sh - the committed man page equals the one built from the help texts, every
# command answers --help with exit 0, and man(1) can render the page.
. "$(dirname "$0")/lib.sh"
sh tests/tools/genman.sh "$ART" >"$TMP/artcarve.1"
if cmp -s "$TMP/artcarve.1" doc/artcarve.1; then t_ok "doc/artcarve.1 is current"
else t_fail "doc/artcarve.1 is stale: run 'make man' ($(diff doc/artcarve.1 "$TMP/artcarve.1" | head -n 3 | tr '\n' ' '))"; fi
for cmd in $("$ART" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p'); do
	if "$ART" "$cmd" --help >"$TMP/h" 2>&1 && grep -q "usage: artcarve $cmd" "$TMP/h"; then t_ok "$cmd --help"
	else t_fail "$cmd --help does not print its usage"; fi
done
if t_need groff; then
	if groff -man -Tutf8 -ww doc/artcarve.1 >/dev/null 2>"$TMP/groff.err" && [ ! -s "$TMP/groff.err" ]; then t_ok "groff renders the page without warnings"
	else t_fail "groff: $(head -n 2 "$TMP/groff.err")"; fi
fi
t_done
