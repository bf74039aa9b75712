"""The Python blocks of a Markdown page of docs/, in order."""
import os
import re

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")


def python_blocks(page):
    with open(os.path.join(DOCS, page)) as f:
        text = f.read()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)
