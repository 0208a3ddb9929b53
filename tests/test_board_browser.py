"""The board as headless Chromium draws it (Debian's ``chromium``, which
``.ci/run`` installs; the tests that need it skip without it).

The page's own script (:data:`pbem.render.html.SCRIPT`) measures every text
of the board with the browser's ``getBBox`` against the picture and against
the counter or box it belongs to, and writes the overflowing ones into
``<pre id="overflow">``: the tests read the DOM Chromium dumps after that
script ran, not the source.  One Chromium run a page gives both the DOM and
the screenshot, and the two pages are drawn at the same time.

The screenshot of the finished Ambon game (the played game of seed 0, the
Allied player's page) is compared with ``tests/reference/ambon-full-game.png``:
at most ``TOLERANCE`` of its pixels may differ by more than ``THRESHOLD`` in
a channel.  After a deliberate change of the board, or of the game's play,
write a new reference with ``PBEM_UPDATE_REFERENCE=1`` and look at it.
The PNGs are read with the standard library only (:func:`read_png`).
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

import pytest
from test_board_svg import boxes, finished_match, texts, view_of

from pbem.games.ambon import GAME
from pbem.render import board
from pbem.render.html import SCRIPT, match_html

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser"))
                 if p and Path(p).exists()), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")

REFERENCE = Path(__file__).parent / "reference" / "ambon-full-game.png"
WINDOW = (1600, 1800)
THRESHOLD = 48  # a pixel differs when a channel is off by more than this
TOLERANCE = 0.01  # the share of pixels that may differ


@dataclass(frozen=True)
class Drawn:
    dom: str
    png: Path

    @property
    def body(self) -> dict[str, str]:
        tag = re.search(r"<body([^>]*)>", self.dom).group(1)
        return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))

    @property
    def overflow(self) -> str:
        found = re.search(r'<pre id="overflow"[^>]*>(.*?)</pre>', self.dom, re.S)
        assert found, "the page has no <pre id=\"overflow\">"
        return found.group(1)

    @property
    def svg(self) -> ET.Element:
        return ET.fromstring(re.search(r"<svg.*</svg>", self.dom, re.S).group(0))


def chromium(pages: dict[str, Path]) -> dict[str, Drawn]:
    """Each page drawn by its own headless Chromium, all at once: its DOM
    after the page's script ran, and its screenshot.  Each has a profile
    of its own: Chromiums started together on one profile (these two, the
    other tests' on another worker) wait on its lock and can hang."""
    runs = {}
    for name, page in pages.items():
        png = page.with_suffix(".png")
        runs[name] = png, subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
             f"--user-data-dir={page.with_suffix('.profile')}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
             f"--screenshot={png}", "--dump-dom", page.as_uri()],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    drawn = {}
    try:
        for name, (png, run) in runs.items():
            out, err = run.communicate(timeout=60)
            assert run.returncode == 0 and "<body" in out, err[-2000:]
            drawn[name] = Drawn(out, png)
    finally:
        for _, run in runs.values():
            if run.poll() is None:
                run.kill()
                run.communicate()
    return drawn


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Drawn]:
    """``finished``: the Allied player's page of the finished Ambon game;
    ``position``: the Allied view of tests/test_board_svg.py's position (full
    landing boxes, hidden mines, a concealed unit, OOS, overstacking) on a
    page with the same script."""
    out = tmp_path_factory.mktemp("browser")
    (out / "finished.html").write_text(match_html(finished_match(tmp_path_factory, "allied")))
    view = {**view_of("allied"), "overstacked": {"1302": "physical overstacking (9.0): no attack, CF 1"}}
    svg = board.board_svg(GAME, view, "allied's view").split("?>", 1)[1]
    (out / "position.html").write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"><script>{SCRIPT}</script>'
                                       f'</head><body><div id="board">{svg}</div><pre id="overflow"></pre></body></html>')
    return chromium({"finished": out / "finished.html", "position": out / "position.html"})


# --------------------------------------------------------------------------- the DOM


@needs_chromium
@pytest.mark.parametrize("name", ["finished", "position"])
def test_no_text_overflows_its_counter_box_or_the_picture_as_chromium_lays_it_out(pages, name):
    drawn = pages[name]
    assert drawn.body.get("data-texts-checked") and int(drawn.body["data-texts-checked"]) > 300, drawn.body
    assert drawn.overflow == "" and drawn.body["data-overflowing"] == "0"


@needs_chromium
def test_11_3_chromium_draws_every_eliminated_unit_in_its_box(tmp_path_factory, pages):
    eliminated = finished_match(tmp_path_factory, "allied").view()["eliminated"]
    box = boxes(pages["finished"].svg)["eliminated"]
    assert sorted(texts(box, "label")) == sorted(eliminated) and len(eliminated) >= 8


@needs_chromium
def test_4_1_and_6_0_chromium_draws_the_mines_and_the_landing_boxes_of_the_position(pages):
    found = boxes(pages["position"].svg)
    assert texts(found["mine-1"], "strip-text") == ["REAL", "DUMMY"]  # the Allied player's own mines
    assert texts(found["mine-2"], "strip-text") == ["REAL"]
    assert sorted(texts(found["fw-liang"], "label")) == ["1.A", "1.B"] and texts(found["off-map"], "label") == ["2.C"]
    assert int(pages["position"].body["data-counters"]) >= 10


@needs_chromium
def test_3_0_the_finished_page_shows_the_verdict_in_its_header(tmp_path_factory, pages):
    result = GAME.result(finished_match(tmp_path_factory, "allied").replay.state)
    header = re.search(r'<header id="status">.*?</header>', pages["finished"].dom, re.S).group(0)
    for line in result:
        assert line.strip() in header
    assert re.search(r'data-field="awaited"><th>Awaited</th><td class="awaited">nobody', header)


# --------------------------------------------------------------------------- the screenshot


def read_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """Width, height, bytes a pixel and the rows of an 8-bit RGB or RGBA,
    non-interlaced PNG (what Chromium writes), by zlib and struct alone."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, head = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        elif kind == b"IEND":
            break
    if head is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour, _, _, interlace = head
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"only 8-bit RGB/RGBA non-interlaced PNGs (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    low, high = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")
    prev, rows = bytes(stride), []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], raw[start + 1:start + 1 + stride]
        if kind == 0:  # None
            row = line
        elif kind == 2:  # Up: bytewise addition of whole rows at once
            a, b = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
            row = (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(stride, "big")
        elif kind == 1:  # Sub
            out = bytearray(line)
            for c in range(bpp):
                out[c::bpp] = bytes(accumulate(line[c::bpp], lambda s, v: (s + v) & 255))
            row = bytes(out)
        elif kind == 3:  # Average
            out = bytearray(line)
            for x in range(stride):
                out[x] = (out[x] + (((out[x - bpp] if x >= bpp else 0) + prev[x]) >> 1)) & 255
            row = bytes(out)
        elif kind == 4:  # Paeth
            out = bytearray(line)
            for x in range(bpp):
                out[x] = (out[x] + prev[x]) & 255
            for x in range(bpp, stride):
                a, b, c = out[x - bpp], prev[x], prev[x - bpp]
                pa, pb = abs(b - c), abs(a - c)
                pc = abs(a + b - 2 * c)
                out[x] = (out[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            row = bytes(out)
        else:
            raise ValueError(f"row {y}: unknown PNG filter {kind}")
        rows.append(row)
        prev = row
    return width, height, bpp, rows


def differing(a: tuple[int, int, int, list[bytes]], b: tuple[int, int, int, list[bytes]]) -> float:
    """The share of pixels that differ by more than THRESHOLD in a channel (RGB)."""
    (w, h, pa, rows_a), (_, _, pb, rows_b) = a, b
    bad = 0
    for ra, rb in zip(rows_a, rows_b, strict=False):
        if ra == rb:
            continue
        for x in range(w):
            i, j = x * pa, x * pb
            if (abs(ra[i] - rb[j]) > THRESHOLD or abs(ra[i + 1] - rb[j + 1]) > THRESHOLD
                    or abs(ra[i + 2] - rb[j + 2]) > THRESHOLD):
                bad += 1
    return bad / (w * h)


def png_of(rows: list[bytes], width: int, bpp: int) -> bytes:
    """An 8-bit RGB/RGBA PNG of ``rows``, row ``y`` filtered with filter
    ``y % 5`` (None, Sub, Up, Average, Paeth): every filter a reader meets."""
    def paeth(a: int, b: int, c: int) -> int:
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        return a if pa <= pb and pa <= pc else b if pb <= pc else c

    raw, prev = b"", bytes(len(rows[0]))
    for y, row in enumerate(rows):
        kind = y % 5
        out = bytearray()
        for x, v in enumerate(row):
            a, b, c = (row[x - bpp] if x >= bpp else 0), prev[x], (prev[x - bpp] if x >= bpp else 0)
            guess = (0, a, b, (a + b) >> 1, paeth(a, b, c))[kind]
            out.append((v - guess) & 255)
        raw += bytes([kind]) + bytes(out)
        prev = row

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    head = struct.pack(">IIBBBBB", width, len(rows), 8, 2 if bpp == 3 else 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


@pytest.mark.parametrize("bpp", [3, 4])
def test_read_png_undoes_every_filter(bpp):
    rows = [bytes((x * 37 + y * 101 + (x * y) % 7) & 255 for x in range(6 * bpp)) for y in range(10)]
    assert read_png(png_of(rows, 6, bpp)) == (6, 10, bpp, rows)
    with pytest.raises(ValueError, match="not a PNG"):
        read_png(b"GIF89a")


def fonts_pinned() -> bool:
    """The families the board and page name first (DejaVu) are installed:
    else Chromium falls back to others and the picture cannot match."""
    listed = subprocess.run(["fc-list"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
    return "DejaVu Sans Mono" in listed and "DejaVu Sans" in listed


@needs_chromium
def test_the_finished_ambon_board_looks_like_the_reference_screenshot(pages, tmp_path):
    if not fonts_pinned():
        pytest.skip("the DejaVu fonts are not installed (apt-get install fonts-dejavu-core): no pixel comparison")
    shot = pages["finished"].png
    if os.environ.get("PBEM_UPDATE_REFERENCE"):
        REFERENCE.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, REFERENCE)
    if not REFERENCE.exists():
        pytest.fail(f"no reference screenshot {REFERENCE}: write one with PBEM_UPDATE_REFERENCE=1 and look at it")
    got, want = read_png(shot.read_bytes()), read_png(REFERENCE.read_bytes())
    kept = tmp_path / "ambon-full-game.png"
    shutil.copyfile(shot, kept)
    assert got[:2] == want[:2], f"the screenshot is {got[:2]}, the reference {want[:2]} (kept in {kept})"
    share = differing(got, want)
    assert share <= TOLERANCE, (f"{share:.2%} of the pixels differ from {REFERENCE.name} (at most {TOLERANCE:.1%}); "
                                f"the screenshot is kept in {kept}; if the change is meant, PBEM_UPDATE_REFERENCE=1")
