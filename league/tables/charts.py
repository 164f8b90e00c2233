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
from typing import NamedTuple
from zoneinfo import ZoneInfo

import noto_cjk_sans_jp_regular
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import (
    MO,
    DateFormatter,
    DateLocator,
    DayLocator,
    HourLocator,
    MonthLocator,
    WeekdayLocator,
    YearLocator,
    date2num,
)
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

from league.tables.ratings import START
from league.tables.standings import zone as tz_zone

__all__ = ["DPI", "FONTS", "HEIGHT_PX", "TITLE_CHARS", "WIDTH_PX", "rating_chart",
           "rating_chart_png", "time_scale"]


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


START_GAP = timedelta(days=2)
"""How far before a first and only game the line starts at :data:`~league.tables.ratings.START`
(with several games: half the mean time between them, within :data:`START_GAP_RANGE`)."""
START_GAP_RANGE = (timedelta(hours=1), timedelta(days=7))
MARGIN = 0.04
"""The room left of the first point and right of the last, as a share of the time shown (the
markers were cut in half at the axes' edges)."""


class TimeScale(NamedTuple):
    """How the time axis is labelled for a span: a tick every ``step`` units (``unit``), each
    labelled ``label`` (strftime), the whole axis placed by ``context`` (the year, or the
    date of an evening's games) written under it."""

    unit: str
    step: int
    label: str
    context: str


def time_scale(span: timedelta, numeric_dates: bool = False) -> TimeScale:
    """The labelling that fits ``span`` (the time shown): hours within a day and a half
    (one evening's games), days up to four months (a tick per week beyond a fortnight),
    months up to three years, then years;
    about six ticks, all of one format (strftime's ``%b`` is English: ``numeric_dates``
    writes months as numbers)."""
    days = span / timedelta(days=1)
    if days <= 1.5:
        hours = max(1, span // timedelta(hours=1))
        return TimeScale("hour", max(1, -(-hours // 6)), "%H:%M",
                         "%Y-%m-%d" if numeric_dates else "%b %d, %Y")
    if days <= 120:
        # within a fortnight a tick per day or two, then one per week or more (on Mondays)
        unit, count = ("day", int(days)) if days <= 14 else ("week", int(days // 7))
        return TimeScale(unit, max(1, -(-count // 6)), "%m-%d" if numeric_dates
                         else "%b %d", "%Y")
    if days <= 3 * 366:
        months = int(days // 30)
        return TimeScale("month", max(1, -(-months // 6)), "%Y-%m" if numeric_dates
                         else "%b %Y", "")
    return TimeScale("year", max(1, -(-int(days // 365) // 6)), "%Y", "")


def _locator(scale: TimeScale, zone: ZoneInfo | None) -> DateLocator:
    if scale.unit == "hour":
        return HourLocator(interval=scale.step, tz=zone)
    if scale.unit == "day":
        return DayLocator(interval=scale.step, tz=zone)
    if scale.unit == "week":
        return WeekdayLocator(byweekday=MO, interval=scale.step, tz=zone)
    if scale.unit == "month":
        return MonthLocator(interval=scale.step, tz=zone)
    return YearLocator(base=scale.step, tz=zone)


def _start_gap(data: list[tuple[datetime, float]]) -> timedelta:
    if len(data) < 2:
        return START_GAP
    low, high = START_GAP_RANGE
    return min(high, max(low, (data[-1][0] - data[0][0]) / (len(data) - 1) / 2))


def rating_chart(points: Sequence[tuple[datetime, float]], title: str, *,
                 empty_text: str = "", tz: str | None = None,
                 numeric_dates: bool = False) -> Figure:
    """The chart of :func:`rating_chart_png` as a figure (not drawn yet)."""
    zone = None if tz is None else tz_zone(tz)
    data = sorted((_utc(when), float(rating)) for when, rating in points)

    fig = Figure(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
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
    # The dashed line says what it is: the rating every player starts from, at its right end
    # (outside the plot, where no point can hide it).
    ax.annotate(f"{START:.0f}", xy=(1, START), xycoords=("axes fraction", "data"),
                xytext=(4, 0), textcoords="offset points", ha="left", va="center",
                fontsize=9, color="#777777", gid="start-label")

    if data:
        # Every player starts at START: the line does too, a little before the first game
        # (one game's point alone would say nothing of where it came from).
        begin = data[0][0] - _start_gap(data)
        times = [date2num(begin)] + [date2num(when) for when, _ in data]
        ratings = [float(START)] + [rating for _, rating in data]
        ax.plot(times, ratings, color=_LINE, linewidth=1.8, gid="rating")
        ax.plot(times[1:], ratings[1:], linestyle="none", color=_LINE, marker="o",
                markersize=3 if len(data) > 1 else 6)
        ax.plot(times[:1], ratings[:1], linestyle="none", marker="o", markersize=4,
                markerfacecolor="white", markeredgecolor=_LINE)
        low, high = min(ratings), max(ratings)
        pad = max(10.0, (high - low) * 0.1)
        ax.set_ylim(low - pad, high + pad)
        span = data[-1][0] - begin
        margin = span * MARGIN
        ax.set_xlim(date2num(begin - margin), date2num(data[-1][0] + margin))
        scale = time_scale(span + 2 * margin, numeric_dates)
        ax.xaxis.set_major_locator(_locator(scale, zone))
        ax.xaxis.set_major_formatter(DateFormatter(scale.label, tz=zone))
        if scale.context:
            first, last = ((when.astimezone(zone) if zone else when).strftime(scale.context)
                           for when in (begin, data[-1][0]))
            ax.set_xlabel(first if first == last else f"{first} – {last}", loc="right",
                          fontsize=9, color="#777777")
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
    return fig


def rating_chart_png(points: Sequence[tuple[datetime, float]], title: str, *,
                     empty_text: str = "", tz: str | None = None,
                     numeric_dates: bool = False) -> bytes:
    """Render ``points`` — ``(when, rating)`` pairs, Elo points after each rated game — as a
    :data:`WIDTH_PX` × :data:`HEIGHT_PX` PNG and return its bytes.

    Points are sorted by time; datetimes should be aware (naive ones are read as UTC), and
    the time axis is labelled in the IANA zone ``tz`` (default UTC; an unknown zone raises
    :class:`ValueError`) in one format that fits the time shown (:func:`time_scale`).
    ``title`` is plain text, cut to :data:`TITLE_CHARS`; characters the font lacks (most
    emoji) show as boxes, with matplotlib's ``UserWarning``. With no points the chart is an
    empty frame showing ``empty_text`` (plain text, already translated by the caller);
    otherwise the line starts at the starting rating, :data:`~league.tables.ratings.START`, a
    little before the first game, and a dashed line labelled with it marks that rating.
    ``numeric_dates``: the time axis writes months as numbers (for readers of another
    language than English).
    """
    fig = rating_chart(points, title, empty_text=empty_text, tz=tz,
                       numeric_dates=numeric_dates)
    buffer = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buffer)
    return buffer.getvalue()
