"""The MysteryRunner of this benchmark: "fails" (exit 0 = interesting) iff the
input contains a pair of matching parentheses with just a number between them,
e.g. "(42)" or "( 3.5 )"."""
import re
import sys

with open(sys.argv[1], "rb") as f:
    data = f.read()
sys.exit(0 if re.search(rb"\(\s*\d+(\.\d+)?\s*\)", data) else 1)
