"""The Elo chart: a valid PNG of the agreed size for 0, 1 or many points, user titles drawn
literally, safe from threads, and no pyplot, Telegram, database or network imports; the line
starts at the starting rating, whose dashed line is labelled, the time axis is labelled in one
format fitting the span, and the first and last points sit inside the frame."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from matplotlib.dates import date2num

from league.tables.charts import (
    FONTS,
    HEIGHT_PX,
    TITLE_CHARS,
    WIDTH_PX,
    rating_chart,
    rating_chart_png,
)
from league.tables.ratings import START

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
T0 = datetime(2024, 3, 1, 18, tzinfo=UTC)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def series(n: int) -> list[tuple[datetime, float]]:
    return [(T0 + timedelta(days=i, hours=i % 5), 1500 + 25 * ((i * 7) % 5) - 2 * i)
            for i in range(n)]


@pytest.mark.parametrize("n", [0, 1, 2, 50])
def test_png_of_the_agreed_size(n: int) -> None:
    data = rating_chart_png(series(n), "Ann")
    assert png_size(data) == (WIDTH_PX, HEIGHT_PX) == (800, 400)
    assert data.endswith(b"IEND\xaeB`\x82")


def test_empty_chart_with_a_message() -> None:
    data = rating_chart_png([], "Bob", empty_text="No rated games yet")
    assert png_size(data) == (800, 400)


def test_points_at_the_same_moment_and_unsorted_input() -> None:
    same = [(T0, 1500.0), (T0, 1520.0)]
    assert png_size(rating_chart_png(same, "x")) == (800, 400)
    shuffled = series(10)[::-1]
    assert png_size(rating_chart_png(shuffled, "x")) == (800, 400)


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")
@pytest.mark.parametrize("title", ["$", "cost $5 and $", r"$\frac{1}{$", r"\alpha_x^2 {}",
                                   "Ёжик 🦊 <b>&amp;", "_" * 300, ""])
def test_titles_are_plain_text(title: str) -> None:
    # with mathtext on, an unbalanced "$" or a broken TeX command raises while drawing
    assert png_size(rating_chart_png(series(3), title)) == (800, 400)
    assert png_size(rating_chart_png([], title, empty_text=title)) == (800, 400)


@pytest.mark.filterwarnings("error")
def test_long_titles_are_cut_to_fit() -> None:
    assert png_size(rating_chart_png(series(3), "W" * 500)) == (800, 400)
    assert png_size(rating_chart_png(series(3), "W" * TITLE_CHARS)) == (800, 400)


def test_naive_times_and_local_axis() -> None:
    naive = [(datetime(2024, 3, 30, 12), 1490.0), (datetime(2024, 4, 2, 9), 1510.0)]
    assert png_size(rating_chart_png(naive, "x", tz="Europe/Berlin")) == (800, 400)
    assert png_size(rating_chart_png(series(5), "x", tz="Asia/Kolkata")) == (800, 400)
    with pytest.raises(ValueError):
        rating_chart_png(series(5), "x", tz="Mars/Olympus_Mons")


def test_charts_can_be_drawn_from_threads() -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        images = list(pool.map(lambda n: rating_chart_png(series(n), f"p{n}"), range(8)))
    assert all(png_size(image) == (800, 400) for image in images)
    assert images[5] == rating_chart_png(series(5), "p5")  # deterministic output


@pytest.mark.process
def test_no_pyplot_telegram_database_or_network_imports() -> None:
    code = (
        "import sys\n"
        "import league.tables.ratings, league.tables.standings, league.tables.charts\n"
        "league.tables.charts.rating_chart_png([], 't')\n"
        "bad = ('matplotlib.pyplot', 'telegram', 'sqlalchemy', 'psycopg', 'aiosqlite',\n"
        "       'httpx', 'aiohttp', 'urllib.request', 'http.client')\n"
        "loaded = sorted(m for m in bad if m in sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.filterwarnings("error")  # matplotlib warns "Glyph … missing from font(s)"
@pytest.mark.parametrize("title", ["김민준의 Elo", "さくらのElo・山田太郎", "Elo de José Ñúñez",
                                   "레이팅 게임 아직 없음", "カタカナ ひらがな 漢字"])
def test_hangul_kana_and_kanji_are_drawn_with_the_packaged_font(title: str) -> None:
    assert png_size(rating_chart_png(series(3), title)) == (800, 400)
    assert png_size(rating_chart_png([], title, empty_text=title)) == (800, 400)


def test_different_cjk_texts_draw_different_glyphs() -> None:
    # Missing glyphs are all the same box: two texts of the same length would look alike.
    korean = rating_chart_png([], "", empty_text="한국어")
    japanese = rating_chart_png([], "", empty_text="日本語")
    assert korean != japanese
    assert FONTS[-1] == "Noto Sans CJK JP"


@pytest.mark.filterwarnings("error")
def test_numeric_dates_for_other_languages() -> None:
    assert png_size(rating_chart_png(series(20), "김민준", numeric_dates=True)) == (800, 400)
    assert rating_chart_png(series(20), "x", numeric_dates=True) != \
        rating_chart_png(series(20), "x")


def _drawn(points, **kw):
    """The chart's axes once drawn (tick labels are known only then)."""
    fig = rating_chart(points, "x", **kw)
    fig.canvas.draw()
    return fig.axes[0]


WEEKS = [(T0, 1480.0), (T0 + timedelta(days=17, hours=3), 1495.0),
         (T0 + timedelta(days=40, hours=-5), 1510.0)]


@pytest.mark.parametrize("points", [WEEKS, WEEKS[:1], series(30)])
def test_the_line_starts_at_the_starting_rating_before_the_first_game(points) -> None:
    ax = _drawn(points)
    line = next(a for a in ax.lines if a.get_gid() == "rating")
    xs, ys = line.get_xdata(), line.get_ydata()
    assert ys[0] == START and list(ys[1:]) == [elo for _, elo in sorted(points)]
    assert xs[0] < date2num(min(when for when, _ in points))


def test_the_starting_rating_line_is_labelled() -> None:
    ax = _drawn(WEEKS)
    labels = [t for t in ax.texts if t.get_text() == f"{START:.0f}"]
    assert len(labels) == 1 and labels[0].xy[1] == START


@pytest.mark.parametrize("points", [[], WEEKS[:1], WEEKS, series(50),
                                    [(T0 + timedelta(days=i), 1500.0 + 300 * i)
                                     for i in range(4)]])
def test_the_starting_rating_label_is_drawn_inside_the_png(points) -> None:
    """The dashed line's "1500" sits right of the plot, where no point hides it: inside the
    picture (tight_layout keeps room for it), beside the line, whatever the range shown.
    It is a number, the only text on the chart no caller translates (the title and the
    empty chart's text come translated; months are numbers for readers of other languages)."""
    ax = _drawn(points)
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    [label] = [t for t in ax.texts if t.get_gid() == "start-label"]
    assert label.get_text() == f"{START:.0f}" == "1500" and label.get_visible()
    box = label.get_window_extent(renderer)
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1, (box, fig.bbox)
    assert fig.bbox.y0 <= box.y0 and box.y1 <= fig.bbox.y1, (box, fig.bbox)
    plot = ax.get_window_extent(renderer)
    assert box.x0 >= plot.x1  # right of the plot
    line_y = ax.transData.transform((0, START))[1]
    assert box.y0 <= line_y <= box.y1  # level with the dashed line


@pytest.mark.parametrize(("points", "pattern"), [
    (WEEKS, r"^[A-Z][a-z]{2} \d\d$"),  # weeks apart: dates, never "12:00"
    (WEEKS[:1], r"^[A-Z][a-z]{2} \d\d$"),  # one game: its date, not the hours around it
    (WEEKS[:2], r"^[A-Z][a-z]{2} \d\d$"),
    ([(T0 + timedelta(days=3 * i), 1500.0 + i) for i in range(4)], r"^[A-Z][a-z]{2} \d\d$"),
    ([(T0 + timedelta(hours=i), 1500.0 + i) for i in range(4)], r"^\d\d:\d\d$"),  # an evening
    ([(T0 + timedelta(days=40 * i), 1500.0 + i) for i in range(12)], r"^[A-Z][a-z]{2} \d{4}$"),
])
def test_the_time_axis_fits_the_span(points, pattern: str) -> None:
    ax = _drawn(points)
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert 2 <= len(labels) <= 8 and all(re.match(pattern, label) for label in labels), labels
    numeric = _drawn(points, numeric_dates=True)
    labels = [t.get_text() for t in numeric.get_xticklabels() if t.get_text()]
    assert all(re.match(r"^[\d:-]+$", label) for label in labels), labels


def test_the_first_and_last_points_are_not_at_the_edges() -> None:
    for points in (WEEKS, WEEKS[:1], series(30)):
        ax = _drawn(points)
        left, right = ax.get_xlim()
        line = next(a for a in ax.lines if a.get_gid() == "rating")
        xs = line.get_xdata()
        room = (right - left) * 0.02
        assert left + room < min(xs) and max(xs) < right - room, (left, right, xs)
