#!/usr/bin/env python3
"""err_audit.py - counts NULL `struct err *` arguments and throw-away error objects.

Usage: err_audit.py [-v] DIR...   (prints "null_err_args N" and "throwaway_errs N")

A NULL error argument: a call whose argument, at the position where the callee's prototype
takes a `struct err *`, is NULL or 0.  A throw-away: a local `struct err X` whose content is
never read (no `X.field`, no copy `= X`, never handed to a `const struct err *` parameter).
The scan strips comments and string literals; it reads C the way a reviewer greps it, not
as a compiler does, so the listing (-v) is meant to be read."""
import os
import re
import sys

IDENT = re.compile(r'\b([A-Za-z_][A-Za-z0-9_]*)\s*\(')
KEYWORDS = {'if', 'while', 'for', 'switch', 'return', 'sizeof', 'defined', '__attribute__',
            '_Static_assert', 'offsetof', 'va_arg', 'typeof', '__typeof__'}


def strip(src):
    """Blanks comments, string and char literals, and preprocessor lines (keeps offsets)."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != '\n':
                    out[k] = ' '
            i = j
        elif src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = ' '
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != '\n':
                    out[k] = ' '
            i = j + 1
        elif c == '#' and (i == 0 or src[i - 1] == '\n'):
            j = i
            while True:
                j = src.find('\n', j)
                if j < 0:
                    j = n
                    break
                if src[j - 1] != '\\':
                    break
                j += 1
            for k in range(i, j):
                if out[k] != '\n':
                    out[k] = ' '
            i = j
        else:
            i += 1
    return ''.join(out)


def args_at(s, open_paren):
    """Top-level comma-separated arguments of the parenthesis at open_paren, and its end."""
    depth, start, args = 0, open_paren + 1, []
    i = open_paren
    while i < len(s):
        c = s[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append(s[start:i].strip())
                return args, i
        elif c == ',' and depth == 1:
            args.append(s[start:i].strip())
            start = i + 1
        i += 1
    return args, len(s)


ERR_PARAM = re.compile(r'^(const\s+)?struct\s+err\s*\*')


def is_decl(args):
    return any(re.match(r'^(const\s+|struct\s+|enum\s+|unsigned\s+|signed\s+)*[A-Za-z_][A-Za-z0-9_]*[\s\*]+[A-Za-z_]', a)
               or a == 'void' or a.endswith('*') for a in args if a)


def sources(dirs):
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    p = os.path.join(root, f)
                    with open(p, encoding='utf-8', errors='replace') as fh:
                        yield p, strip(fh.read())


def main(argv):
    verbose = '-v' in argv
    dirs = [a for a in argv if a != '-v']
    files = list(sources(dirs))
    err_pos = {}     # function name -> set of (index, const?) of its struct err * parameters
    for _, s in files:
        for m in IDENT.finditer(s):
            name = m.group(1)
            if name in KEYWORDS:
                continue
            args, _ = args_at(s, m.end() - 1)
            if not is_decl(args):
                continue
            for i, a in enumerate(args):
                em = ERR_PARAM.match(a)
                if em:
                    err_pos.setdefault(name, set()).add((i, bool(em.group(1))))
    nulls, throws = [], []
    for path, s in files:
        if not path.endswith('.c'):
            continue
        line = lambda off: s.count('\n', 0, off) + 1
        for m in IDENT.finditer(s):
            name = m.group(1)
            if name not in err_pos:
                continue
            args, _ = args_at(s, m.end() - 1)
            if is_decl(args):
                continue
            for i, _c in err_pos[name]:
                if i < len(args) and args[i] in ('NULL', '0', '(void *)0'):
                    nulls.append('%s:%d: %s(... NULL ...)' % (path, line(m.start()), name))
        for m in re.finditer(r'\n[ \t]+struct\s+err\s+([A-Za-z_][A-Za-z0-9_]*)\s*;', s):
            var = m.group(1)
            if in_struct_body(s, m.start() + 1):
                continue    # a member of a struct definition, not a local
            body = block_after(s, m.start() + 1)
            if not reported(body, var, err_pos):
                throws.append('%s:%d: struct err %s' % (path, line(m.start() + 1), var))
    if verbose:
        for x in nulls + throws:
            print(x)
    print('null_err_args %d' % len(nulls))
    print('throwaway_errs %d' % len(throws))


def in_struct_body(s, pos):
    """True when pos lies directly inside a struct or union definition's braces."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        if s[i] == '}':
            depth += 1
        elif s[i] == '{':
            if depth == 0:
                head = s[max(0, i - 200):i]
                return re.search(r'\b(struct|union)(\s+[A-Za-z_]\w*)?\s*$', head) is not None
            depth -= 1
    return False


def block_after(s, pos):
    """Text from pos to the end of the enclosing {} block."""
    depth = 0
    for i in range(pos, len(s)):
        if s[i] == '{':
            depth += 1
        elif s[i] == '}':
            if depth == 0:
                return s[pos:i]
            depth -= 1
    return s[pos:]


def reported(body, var, err_pos):
    v = re.escape(var)
    if re.search(r'\b%s\s*(\.|->)' % v, body) or re.search(r'=\s*%s\b\s*;' % v, body):
        return True
    # &var handed to a const struct err * parameter (a reporter such as err_exit_status)
    for m in IDENT.finditer(body):
        pos = err_pos.get(m.group(1))
        if not pos:
            continue
        args, _ = args_at(body, m.end() - 1)
        for i, const in pos:
            if const and i < len(args) and re.fullmatch(r'&\s*%s' % v, args[i]):
                return True
    # an alias `struct err *p = ... &var` is read through p: follow it once
    for m in re.finditer(r'struct\s+err\s*\*\s*([A-Za-z_]\w*)\s*=[^;]*&\s*%s\b' % v, body):
        if re.search(r'\b%s\s*->' % re.escape(m.group(1)), body):
            return True
    return False


if __name__ == '__main__':
    main(sys.argv[1:])
