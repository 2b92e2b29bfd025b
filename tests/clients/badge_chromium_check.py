"""Renders a violations badge with headless Chromium and checks the colours a browser shows.

Usage: badge_chromium_check.py CHROMIUM BADGE_SVG
The badge is the one for fail=1, warn=0, info=0: grey label, red, yellow and blue cells.
"""

import os
import subprocess
import sys
import tempfile

from PIL import Image

chromium, svg = sys.argv[1], os.path.abspath(sys.argv[2])
out = os.path.join(tempfile.mkdtemp(), "badge.png")
subprocess.run(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
     "--force-device-scale-factor=1", "--window-size=300,100", f"--screenshot={out}",
     f"file://{svg}"],
    check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120,
)
img = Image.open(out).convert("RGB")

expected = {
    "label #555": ((20, 3), (0x55, 0x55, 0x55)),
    "fail #dc0000": ((55, 3), (0xDC, 0x00, 0x00)),
    "warn #fdc500": ((85, 3), (0xFD, 0xC5, 0x00)),
    "info #20a8d8": ((134, 10), (0x20, 0xA8, 0xD8)),
    "outside the badge is page background": ((200, 50), (0xFF, 0xFF, 0xFF)),
}
failed = 0
for what, ((x, y), want) in expected.items():
    got = img.getpixel((x, y))
    ok = all(abs(g - w) <= 12 for g, w in zip(got, want))
    print(f"{'ok' if ok else 'FAILED'} - {what}: pixel ({x},{y}) is {got}")
    failed += 0 if ok else 1
print(f"{len(expected) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
