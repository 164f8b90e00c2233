"""A PNG chart of one player's Elo over time, for ``/profile``.

Drawn with matplotlib's Agg renderer on a bare :class:`matplotlib.figure.Figure` (never
``pyplot``): no display is needed, no global figure state is kept, and charts may be drawn
from several threads at once (e.g. via ``asyncio.to_thread``). Text from users (the title) is
drawn literally: mathtext and TeX are off, so ``$`` and ``\\`` need no escaping.

Text is set in :data:`FONTS`, a fallback list matplotlib walks glyph by glyph: DejaVu Sans
(matplotlib's own) for Latin, Greek and Cyrillic, then Noto Sans CJK JP (the
``noto-cjk-sans-jp-regular`` dependency, registered here) for Hangul, kana and kanji.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import noto_cjk_sans_jp_regular
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

from league.ratings import START
from league.standings import zone as tz_zone

__all__ = ["DPI", "FONTS", "HEIGHT_PX", "TITLE_CHARS", "WIDTH_PX", "rating_chart_png"]


def _register_cjk() -> str:
    """Add the packaged Noto Sans CJK file to matplotlib's fonts; its family name."""
    path = str(noto_cjk_sans_jp_regular.FONT_PATH)
    font_manager.fontManager.addfont(path)
    return font_manager.FontProperties(fname=path).get_name()


FONTS = ["DejaVu Sans", _register_cjk()]
"""The font families of every text in a chart, in fallback order."""

WIDTH_PX = 800
"""Width of the PNG in pixels."""
HEIGHT_PX = 400
"""Height of the PNG in pixels."""
DPI = 100
"""Resolution used to turn the pixel size into a figure size."""

TITLE_CHARS = 70
"""Longer titles are cut to this many characters (ending in "…") so they fit the width."""

_LINE = "#1f6fb2"


def _utc(moment: datetime) -> datetime:
    """Aware datetimes as UTC; naive ones are taken to be UTC already."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


NUMERIC_DATES = {
    "formats": ["%Y", "%m", "%d", "%H:%M", "%H:%M", "%S.%f"],
    "zero_formats": ["", "%Y", "%m", "%m-%d", "%H:%M", "%H:%M"],
    "offset_formats": ["", "%Y", "%Y-%m", "%Y-%m-%d", "%Y-%m-%d", "%Y-%m-%d %H:%M"],
}
"""The time axis's labels without month names (strftime's ``%b`` is English)."""


def rating_chart_png(points: Sequence[tuple[datetime, float]], title: str, *,
                     empty_text: str = "", tz: str | None = None,
                     numeric_dates: bool = False) -> bytes:
    """Render ``points`` — ``(when, rating)`` pairs, Elo points after each rated game — as a
    :data:`WIDTH_PX` × :data:`HEIGHT_PX` PNG and return its bytes.

    Points are sorted by time; datetimes should be aware (naive ones are read as UTC), and
    the time axis is labelled in the IANA zone ``tz`` (default UTC; an unknown zone raises
    :class:`ValueError`). ``title`` is plain text, cut to :data:`TITLE_CHARS`; characters the
    font lacks (most emoji) show as boxes, with matplotlib's ``UserWarning``. With no points
    the chart is an empty frame showing ``empty_text`` (plain text, already translated by the
    caller); a single point is drawn as a marker. A dashed line marks the starting rating,
    :data:`~league.ratings.START`. ``numeric_dates``: the time axis writes months as numbers
    (for readers of another language than English).
    """
    zone = None if tz is None else tz_zone(tz)
    data = sorted((_utc(when), float(rating)) for when, rating in points)

    fig = Figure(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if len(title) > TITLE_CHARS:
        title = title[:TITLE_CHARS - 1] + "…"
    ax.set_title(title, loc="left", fontsize=12, usetex=False, parse_math=False,
                 fontfamily=FONTS)
    ax.grid(True, color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.axhline(START, color="#999999", linestyle="--", linewidth=0.8)

    if data:
        times = [date2num(when) for when, _ in data]
        ratings = [rating for _, rating in data]
        ax.plot(times, ratings, color=_LINE, linewidth=1.8, marker="o",
                markersize=3 if len(data) > 1 else 6)
        low, high = min(ratings + [START]), max(ratings + [START])
        pad = max(10.0, (high - low) * 0.1)
        ax.set_ylim(low - pad, high + pad)
        first, last = data[0][0], data[-1][0]
        if last - first < timedelta(hours=1):
            first, last = first - timedelta(days=1), last + timedelta(days=1)
        ax.set_xlim(date2num(first), date2num(last))
        locator = AutoDateLocator(tz=zone, minticks=3, maxticks=8)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(
            locator, tz=zone, **(NUMERIC_DATES if numeric_dates else {})))
    else:
        ax.set_ylim(START - 100, START + 100)
        ax.set_xticks([])
        if empty_text:
            ax.text(0.5, 0.5, empty_text, transform=ax.transAxes, ha="center", va="center",
                    color="#666666", usetex=False, parse_math=False, in_layout=False,
                    fontfamily=FONTS,
                    bbox={"facecolor": "white", "edgecolor": "none"})
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:.0f}"))
    fig.tight_layout()

    buffer = io.BytesIO()
    canvas.print_png(buffer)
    return buffer.getvalue()
