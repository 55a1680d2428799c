#!/bin/sh
# test_setup.sh - the README's set-up commands on a machine where the packages are missing when
# make starts.  A copy of the source tree is built with fake package tools first on PATH:
#   dpkg-query  says every package is absent until the fake apt-get has "installed" them;
#   apt-get     records its call and marks the packages installed;
#   pkg-config  finds nothing until then (as on a fresh Debian 12), then answers as the real one.
# Checked: `make -j2 demo` succeeds on its first run (the flags are read after deps); a missing
# .pc file stops the build with its package named; without root, deps goes through $(SUDO), and
# without root or sudo it prints one line saying what to run as root.
. "$(dirname "$0")/lib.sh"
# run as a user would, not as a sub-make of `make check` (make's own lines, such as a jobserver
# warning or its error trailer, are not counted as the message)
unset MAKEFLAGS MFLAGS MAKELEVEL
real_pkg_config=$(command -v pkg-config)
[ -n "$real_pkg_config" ] || { t_fail "pkg-config is installed (make deps)"; t_done; exit 1; }
chmod 755 "$TMP"
mkdir -m 777 "$TMP/state"
mkdir "$TMP/bin"

# copy_tree DIR: the tracked sources (no build outputs) into DIR
copy_tree() {
	mkdir -p "$1"
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - | tar xf - -C "$1"
	else
		tar cf - --exclude=./build --exclude=./artcarve . | tar xf - -C "$1"
	fi
}

cat >"$TMP/bin/dpkg-query" <<EOF
#!/bin/sh
[ -f "$TMP/state/installed" ] && exec /usr/bin/dpkg-query "\$@"
exit 1
EOF
cat >"$TMP/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$* (uid \$(id -u))" >>"$TMP/state/apt.log"
[ "\$1" = install ] && touch "$TMP/state/installed"
exit 0
EOF
cat >"$TMP/bin/pkg-config" <<EOF
#!/bin/sh
[ -f "$TMP/state/installed" ] || exit 1
[ -n "\$MISSING_PC" ] && for a in "\$@"; do [ "\$a" = "\$MISSING_PC" ] && exit 1; done
exec $real_pkg_config "\$@"
EOF
cat >"$TMP/bin/fake-sudo" <<EOF
#!/bin/sh
echo "sudo \$*" >>"$TMP/state/sudo.log"
exec "\$@"
EOF
chmod 755 "$TMP/bin/"*
FAKE_PATH=$TMP/bin:$PATH

# 1. make -j2 demo, first run, packages absent at parse time
copy_tree "$TMP/src"
PATH=$FAKE_PATH make -C "$TMP/src" -j2 demo >"$TMP/demo.log" 2>&1
rc=$?
echo "make -j2 demo: exit $rc; apt-get calls: $(cat "$TMP/state/apt.log" 2>/dev/null | tr '\n' ';')"
[ "$rc" -eq 0 ] && t_ok "make -j2 demo succeeds on its first run with no package installed at start" ||
	{ t_fail "make -j2 demo, first run (exit $rc)"; tail -n 20 "$TMP/demo.log"; }
grep -q '^apt-get install -y -q .*libelf-dev' "$TMP/state/apt.log" 2>/dev/null &&
	t_ok "demo installed the build packages before building" || t_fail "demo did not install the build packages"
grep -q 'demo outputs are in' "$TMP/demo.log" && t_ok "demo carved the sample and showed its results" ||
	t_fail "demo output lacks its last line"
if grep -q 'undefined reference' "$TMP/demo.log"; then t_fail "link line without the pkg-config libraries"
else t_ok "no undefined references at link time"; fi

# 2. a missing .pc file is an error naming the package, not an empty link line
copy_tree "$TMP/src2"
MISSING_PC=liblz4 PATH=$FAKE_PATH make -C "$TMP/src2" build/artcarve >"$TMP/pc.log" 2>&1
rc=$?
echo "make with liblz4.pc missing: exit $rc: $(grep -m1 'liblz4' "$TMP/pc.log")"
[ "$rc" -ne 0 ] && grep -q "no liblz4.pc: run 'make deps' (Debian package liblz4-dev)" "$TMP/pc.log" &&
	t_ok "a missing liblz4.pc is named with its Debian package" || t_fail "missing .pc not reported (exit $rc)"
[ ! -e "$TMP/src2/build/artcarve" ] && t_ok "nothing linked without liblz4" || t_fail "artcarve linked without liblz4"

# 3. not root: deps through $(SUDO); without root or sudo, one line saying what to run as root
rm -f "$TMP/state/installed" "$TMP/state/apt.log"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env PATH="$FAKE_PATH" HOME="$TMP" "$@"; }
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	as_nobody make -C "$TMP/src2" --no-print-directory deps-build SUDO=no-such-sudo >"$TMP/nosudo.log" 2>&1
	rc=$?
	echo "deps as uid 65534 without sudo: exit $rc: $(cat "$TMP/nosudo.log")"
	[ "$rc" -ne 0 ] && [ "$(grep -vEc '^make(\[[0-9]+\])?: ' "$TMP/nosudo.log")" -eq 1 ] &&
		grep -q '^deps: missing packages, not root and no no-such-sudo: run as root: apt-get update && apt-get install -y build-essential' "$TMP/nosudo.log" &&
		t_ok "without root or sudo: one line naming the command to run as root" || t_fail "no-root message"
	[ ! -f "$TMP/state/apt.log" ] && t_ok "apt-get not run without root" || t_fail "apt-get ran without root"
	as_nobody make -C "$TMP/src2" --no-print-directory deps-build SUDO="$TMP/bin/fake-sudo" >"$TMP/sudo.log" 2>&1
	rc=$?
	echo "deps as uid 65534 with sudo: exit $rc; sudo calls: $(tr '\n' ';' <"$TMP/state/sudo.log" 2>/dev/null)"
	[ "$rc" -eq 0 ] && grep -q "^sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q build-essential" "$TMP/state/sudo.log" &&
		t_ok "a normal user installs through sudo" || t_fail "deps through sudo (exit $rc)"
else
	t_fail "the no-root cases need root and setpriv to switch to uid 65534"
fi
t_done
