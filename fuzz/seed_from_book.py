#!/usr/bin/env python3
"""Copies every module of the book's `hlo-test` examples into fuzz/corpus/, so that the fuzzer
starts from programs that exercise every op family. Run from the repository root."""
import pathlib
import re

out = pathlib.Path("fuzz/corpus")
out.mkdir(parents=True, exist_ok=True)
count = 0
for md in sorted(pathlib.Path("book/src").rglob("*.md")):
    for m in re.finditer(r"^```hlo-test ([a-z0-9_]+)\n(.*?)^---\n", md.read_text(), re.S | re.M):
        (out / f"book-{md.stem}-{m.group(1)}.hlo").write_text(m.group(2))
        count += 1
print(f"wrote {count} seed modules to {out}/")
