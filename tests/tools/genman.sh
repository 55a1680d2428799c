#!/bin/sh
# tests/tools/genman.sh ARTCARVE > doc/artcarve.1
# Builds the man page from the binary's own help texts, so the page and `--help` never
# disagree (tests/shell/test_manpage.sh fails when the committed page is stale).
set -eu
art=$1
esc() { sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/'; }
cat <<'HEAD'
.TH ARTCARVE 1 "" "artcarve" "User Commands"
.SH NAME
artcarve \- recover Java objects from Android ART process memory images; HPROF/BMD codec
.SH SYNOPSIS
.B artcarve
.I COMMAND
.RI [ ARGS ...]
.SH DESCRIPTION
HEAD
echo ".nf"
"$art" --help | esc
echo ".fi"
echo ".SH COMMANDS"
for cmd in $("$art" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p'); do
	echo ".SS $cmd"
	echo ".nf"
	"$art" "$cmd" --help | esc
	echo ".fi"
done
cat <<'TAIL'
.SH EXIT STATUS
.TP
.B 0
success
.TP
.B 1
input rejected: truncated, corrupt, unsupported or unmapped data; the one-line error on
standard error names the file and the offset or address
.TP
.B 2
usage error
.TP
.B 3
internal, I/O or out-of-memory error
.SH FILES
Every output file is written under a temporary name beside its destination and renamed
when complete; a failed run leaves no partial output.  Inputs are never written.
.SH SEE ALSO
.BR hprof-conv (1),
.BR dexdump (1),
.BR objdump (1)
TAIL
