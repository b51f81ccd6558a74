#!/usr/bin/env python3
"""Lists the functions in C++ sources whose bodies are longer than a limit (the house style keeps a
function under about 100 lines, docs/architecture.md).

A function's length is its body lines: the lines strictly between the line of its opening brace and
the line of its closing one, blank and comment lines included (what a reader has to scroll through).
Lambdas and local classes count toward the function that holds them.

It is a lexical scan, not a compiler: comments, string and character literals (raw strings and
digit separators included) and preprocessor lines are blanked first, then braces are matched. At
namespace and class scope a `{` opens a function body when the declaration before it has a
parameter list and ends like a function head (`)`, a qualifier such as `const`/`noexcept`/
`override`, a trailing return type, or a constructor's member-initialiser list); any other brace
there (an enum, an aggregate initialiser, `x = [] {...}`) is skipped whole.

Usage:
  fnlen.py [--max N] [--allow FILE] [--root DIR] PATH...
PATHs are files or directories (searched for *.cpp and *.hpp), reported relative to --root (default:
the current directory). Without --allow it lists every over-long function and exits 0. With --allow
it exits 1 when an over-long function is not on the allowlist (lines "PATH FUNCTION", `#` comments)
or when an entry there no longer names an over-long function, so that the list only shrinks; with
--stamp FILE it touches FILE when it passes (for the build).
"""
import argparse
import os
import re
import sys

IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
# Tokens after a parameter list that still belong to a function head.
HEAD_SUFFIX = {'const', 'volatile', 'noexcept', 'override', 'final', 'mutable', '&', '&&', 'try'}


LEXEMES = re.compile(r"""
    (?P<pp>^[ \t]*\#(?:\\\n|[^\n])*)                                     # preprocessor line
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))                              # comments
  | (?P<raw>(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\(.*?(?:\)(?P=delim)"|\Z))
  | (?P<str>(?<![A-Za-z0-9_])(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*"?)           # string literal
  | (?P<chr>(?<![A-Za-z0-9_])(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*'?)           # character literal
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.]|'(?=[0-9A-Za-z]))*)     # pp-number: 1'000, 1e-3
""", re.VERBOSE | re.MULTILINE | re.DOTALL)


def blank(text):
    """The text with comments, literals and preprocessor lines blanked, newlines kept so that
    line numbers still hold. A string literal becomes "" and a character literal ''."""
    def repl(m):
        kind = 'raw' if m.group('raw') is not None else m.lastgroup
        s = m.group(0)
        if kind in ('ident', 'num'):
            return s
        nl = '\n' * s.count('\n')
        if kind in ('raw', 'str'):
            return '""' + nl
        if kind == 'chr':
            return "''" + nl
        return ' ' + nl  # pp, comment
    return LEXEMES.sub(repl, text)


TOKEN = re.compile(r"""\n|[A-Za-z_][A-Za-z0-9_]*|[0-9][A-Za-z0-9_.']*|""|''|\.\.\.|<=>|->\*|<<=|>>=|::|->|&&|\|\|
                      |==|!=|<=|>=|\+\+|--|[-+*/%&|^]=|<<|\.\*|\S""", re.VERBOSE)


def tokens(text):
    """(token, line) pairs of blanked text ('>>' is left as two '>', which close templates)."""
    line = 1
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if t == '\n':
            line += 1
        else:
            yield t, line


def strip_template(head):
    """The head without its leading `template <...>` clauses."""
    while head and head[0] == 'template' and len(head) > 1 and head[1] == '<':
        depth, k = 0, 1
        while k < len(head):
            if head[k] == '<':
                depth += 1
            elif head[k] == '>':
                depth -= 1
                if depth == 0:
                    break
            k += 1
        head = head[k + 1:]
    return head


def function_name(head):
    """The (qualified) name before the parameter list of a function head, or None."""
    head = strip_template(head)
    if '(' not in head:
        return None
    k = head.index('(')
    if 'operator' in head[:k + 1]:
        o = head.index('operator')
        end = o + 3 if head[o + 1:o + 3] == ['(', ')'] else head.index('(', o)
        name_end, name_start = end, o
    else:
        name_end, name_start = k, k
    # Walk back over a qualified name: a::b<c>::d, ~X.
    i = name_start - 1
    depth = 0
    while i >= 0:
        t = head[i]
        if t == '>' and i > 0 and head[i + 1:i + 2] == ['::']:
            depth += 1
        elif t == '<' and depth > 0:
            depth -= 1
        elif depth == 0:
            if t in ('::', '~'):
                pass
            elif IDENT.fullmatch(t) and (i + 1 == name_start or head[i + 1] in ('::', '~')):
                pass
            else:
                break
        i -= 1
    name = ''.join(head[i + 1:name_end])
    return name or None


def is_function_head(head):
    """Whether a declaration head (tokens since the last ; { } at this scope) opens a function."""
    head = strip_template(head)
    if not head or head[0] in ('namespace', 'enum', 'extern', 'using', 'typedef', 'static_assert'):
        return False
    if '(' not in head:
        return False
    first = head.index('(')
    for i in range(first):
        if head[i] == '=' and (i == 0 or head[i - 1] != 'operator'):
            return False  # an initialiser: x = ... {
    if head[0] in ('class', 'struct', 'union') and first > 0:
        # struct S : Base<f(x)> {  — a class whose base names a call: rare, but not a function.
        colon = next((i for i, t in enumerate(head) if t == ':'), None)
        if colon is not None and colon < first:
            return False
    last = head[-1]
    if last == ')' or last in HEAD_SUFFIX:
        return True
    # A trailing return type: f(...) -> T {
    depth = 0
    for t in reversed(head):
        if t in (')', ']'):
            depth += 1
        elif t in ('(', '['):
            depth -= 1
        elif t == '->' and depth == 0:
            return True
    return False


def in_initialiser_list(head):
    """Whether the head is a constructor's member-initialiser list: `X(...) : a(1), b`."""
    head = strip_template(head)
    depth = 0
    seen_params = False
    for t in head:
        if t in ('(', '[', '{'):
            depth += 1
        elif t in (')', ']', '}'):
            depth -= 1
            if depth == 0:
                seen_params = True
        elif t == ':' and depth == 0 and seen_params:
            return True
    return False


def scan(text):
    """(name, first body line, last body line, body lines) of every function defined in text."""
    toks = list(tokens(blank(text)))
    found = []
    # Scopes where declarations (not statements) live: file, namespace, class, extern "C".
    head = []
    depth_stack = []  # one entry per open declaration scope
    i = 0
    n = len(toks)

    def skip_braces(k):
        """Index after the brace matching toks[k] == '{'."""
        depth = 0
        while k < n:
            t = toks[k][0]
            if t == '{':
                depth += 1
            elif t == '}':
                depth -= 1
                if depth == 0:
                    return k + 1
            k += 1
        return n

    paren = 0
    while i < n:
        t, line = toks[i]
        if t in ('(', '['):
            paren += 1; head.append(t); i += 1; continue
        if t in (')', ']'):
            paren -= 1; head.append(t); i += 1; continue
        if paren > 0:
            if t == '{':  # a braced argument inside a declaration head: x(T{1})
                j = skip_braces(i)
                head.extend(tok for tok, _ in toks[i:j]); i = j; continue
            head.append(t); i += 1; continue
        if t == ';':
            head = []; i += 1; continue
        if t == '}':
            if depth_stack:
                depth_stack.pop()
            head = []; i += 1; continue
        if t == ':' and head and head[-1] in ('public', 'private', 'protected'):
            head = []; i += 1; continue
        if t != '{':
            head.append(t); i += 1; continue
        # An opening brace at declaration scope.
        h = strip_template(head)
        if h and (h[0] == 'namespace' or (h[0] == 'extern' and len(h) <= 2)):
            depth_stack.append('ns'); head = []; i += 1; continue
        if in_initialiser_list(head) and head and head[-1] not in (')', '}'):
            # A braced member initialiser: X() : a{1} {  — part of the head.
            j = skip_braces(i)
            head.extend(tok for tok, _ in toks[i:j]); i = j; continue
        if is_function_head(head) or (in_initialiser_list(head) and head[-1] in (')', '}')):
            j = skip_braces(i)
            last_line = toks[j - 1][1]
            body = max(0, last_line - line - 1)
            found.append((function_name(head) or '?', line, last_line, body))
            head = []; i = j; continue
        if h and h[0] in ('class', 'struct', 'union') and '=' not in h:
            depth_stack.append('class'); head = []; i += 1; continue
        # An enum body, an aggregate or lambda initialiser...: not a function, skipped whole.
        j = skip_braces(i)
        head.extend(tok for tok, _ in toks[i:j]); i = j
    return found


def sources(paths):
    for p in paths:
        if os.path.isdir(p):
            for d, _, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith(('.cpp', '.hpp')):
                        yield os.path.join(d, f)
        else:
            yield p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--max', type=int, default=100, help='longest body allowed (lines)')
    ap.add_argument('--allow', help='allowlist file: "PATH FUNCTION" per line')
    ap.add_argument('--root', default='.', help='paths are reported relative to this')
    ap.add_argument('--stamp', help='touched when the check passes (for the build)')
    ap.add_argument('paths', nargs='+')
    a = ap.parse_args()
    long_ones = []
    for path in sorted(set(sources(a.paths))):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        rel = os.path.relpath(path, a.root)
        for name, first, _, body in scan(text):
            if body > a.max:
                long_ones.append((rel, name, first, body))
    if a.allow is None:
        for rel, name, first, body in sorted(long_ones, key=lambda x: -x[3]):
            print(f'{body:5d}  {rel}:{first}  {name}')
        return 0
    allowed = set()
    with open(a.allow, encoding='utf-8') as f:
        for raw in f:
            line = raw.split('#', 1)[0].split()
            if len(line) >= 2:
                allowed.add((line[0], line[1]))
    fail = False
    for rel, name, first, body in long_ones:
        if (rel, name) not in allowed:
            print(f'fnlen: {rel}:{first}: {name} has {body} body lines (limit {a.max}): '
                  'split it into named phases', file=sys.stderr)
            fail = True
    still = {(rel, name) for rel, name, _, _ in long_ones}
    for entry in sorted(allowed - still):
        print(f'fnlen: {entry[0]} {entry[1]} is no longer over {a.max} lines (or is gone): '
              f'remove it from {os.path.relpath(a.allow, a.root)}', file=sys.stderr)
        fail = True
    if fail:
        return 1
    if a.stamp:
        os.makedirs(os.path.dirname(os.path.abspath(a.stamp)), exist_ok=True)
        with open(a.stamp, 'w'):
            pass
    print(f'fnlen: ok ({len(long_ones)} allowlisted over {a.max} lines)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
