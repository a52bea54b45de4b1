#!/usr/bin/env python3
"""Lists library functions longer than the limit (issue #37: at most 60 lines), and exits 1 when there is one.

A function's length runs from its declaration's first line to its closing brace, comments and blank lines included,
as a reader sees it. Braces inside string literals and comments are not counted. Usage:

    python3 scripts/check-function-lengths.py [--max 60] [PATH...]   # default: Sources
"""
import argparse
import pathlib
import re
import sys

DECLARATION = re.compile(
    r'^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*'
    r'(?:(?:public|package|internal|private|fileprivate|static|class|final|override|mutating|nonmutating|'
    r'nonisolated|convenience|required|dynamic|borrowing|consuming)(?:\([^)]*\))?\s+)*'
    r'(func\s+[^\s(<]+|init[?!]?|deinit|subscript|(?:var|let)\s+\w+\s*:[^={]*\{)')
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def code_only(line: str, in_block_string: bool) -> tuple[str, bool]:
    """The line without string literals and comments, and whether a multi-line string is still open after it."""
    if in_block_string:
        if '"""' not in line:
            return '', True
        line = line.split('"""', 1)[1]
    if line.count('"""') % 2 == 1:
        line = line.split('"""', 1)[0]
        return STRING.sub('""', line).split('//', 1)[0], True
    line = STRING.sub('""', line.replace('"""', '"'))
    return line.split('//', 1)[0], False


def lengths(path: pathlib.Path):
    lines = path.read_text().split('\n')
    for start, text in enumerate(lines):
        match = DECLARATION.match(text)
        if not match:
            continue
        depth, opened, in_string = 0, False, False
        for end in range(start, len(lines)):
            code, in_string = code_only(lines[end], in_string)
            for ch in code:
                if ch == '{':
                    depth, opened = depth + 1, True
                elif ch == '}':
                    depth -= 1
            if opened and depth <= 0:
                yield end - start + 1, start + 1, match.group(1).strip().rstrip('{').strip()
                break
            if not opened and end > start + 10:
                break  # a protocol requirement or a stored property: no body


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--max', type=int, default=60)
    parser.add_argument('paths', nargs='*', default=['Sources'])
    args = parser.parse_args()
    long = []
    for root in map(pathlib.Path, args.paths):
        files = [root] if root.is_file() else sorted(root.rglob('*.swift'))
        for path in files:
            long += [(n, f'{path}:{line}', name) for n, line, name in lengths(path) if n > args.max]
    for n, where, name in sorted(long, reverse=True):
        print(f'{n:4} lines  {where}  {name}')
    if long:
        print(f'{len(long)} functions are longer than {args.max} lines: split them (issue #37).', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
