"""Print the slowest tests of every pytest run that wrote its times to a folder.

Usage: ``python tests/slowest.py <folder> [count]`` (``make test`` ends with it; the runs
write there when ``$ATTNBOOK_DURATIONS`` names the folder, see ``conftest.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(folder: str, count: int = 25) -> None:
    times: dict[str, float] = {}
    for path in sorted(Path(folder).glob("*.json")):
        times.update(json.loads(path.read_text(encoding="utf-8")))
    slowest = sorted(times.items(), key=lambda item: item[1], reverse=True)[:count]
    print(f"The {len(slowest)} slowest of {len(times)} tests (setup, call and teardown):")
    for nodeid, seconds in slowest:
        print(f"{seconds:8.2f} s  {nodeid}")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
