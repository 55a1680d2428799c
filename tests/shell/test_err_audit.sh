# tier: quick
# test_err_audit.sh - no NULL `struct err *` argument in the code (carver/ art/ output/
# rosalloc/), and no new throw-away error object: tests/tools/err_audit.py lists both.  The
# throw-aways allowed are the image-header probes ("is an ART image header mapped here?",
# whose failure is the answer): spaces_probe_image_header and image_objects_end in
# art/runtime/spaces.c, hooks_walk_image_spaces in art/code/hooks_image.c; and the chain probe
# ("does a sound object start here?") ch_step in rosalloc/walk/chain.c.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { t_fail "python3 missing"; t_done; exit; }
python3 tests/tools/err_audit.py -v carver art output rosalloc >"$TMP/audit" || { t_fail "err_audit.py failed"; t_done; exit; }
cat "$TMP/audit"
nulls=$(sed -n 's/^null_err_args //p' "$TMP/audit")
throws=$(sed -n 's/^throwaway_errs //p' "$TMP/audit")
t_check "NULL error arguments: $nulls (0 allowed)" [ "$nulls" = 0 ]
allowed=$(grep -c -E '^art/runtime/spaces\.c:[0-9]+: struct err why$|^art/code/hooks_image\.c:[0-9]+: struct err why$|^rosalloc/walk/chain\.c:[0-9]+: struct err why$' "$TMP/audit")
only_probes() { [ "$throws" = "$allowed" ] && [ "$allowed" -le 4 ]; }
t_check "throw-away errors: $throws, $allowed of them the allowed probes (4 at most)" only_probes
t_done
