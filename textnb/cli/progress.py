"""The one progress bar of the command-line tools (textnb, spamfilter, topicfilter).

On a terminal it is a tqdm bar when tqdm is installed (the ``progress`` extra), else a
one-line bar written here, as wide as the terminal lets it (as tqdm's); when the command's stderr (the stream its ``main`` was given)
is not a terminal (piped, redirected, a test) it is silent and costs nothing. The library never prints: it takes a ``progress(done,
total)`` callable, and this is what the command line passes.
"""

import io
import time

from textnb.cli.streams import one_line

__all__ = ["FALLBACK_COLUMNS", "FALLBACK_LINES", "Progress", "write_line"]

#: the bar's width and the screen's height on a terminal that reports none (0 columns or lines)
FALLBACK_COLUMNS, FALLBACK_LINES = 80, 24

#: the bars drawn now (started, not closed), each on its stream: where :func:`write_line` writes
_drawn = []


def write_line(stream, text):
    """Write the line ``text`` to ``stream`` (a command's standard error), above the bar drawn
    there if any (:meth:`Progress.write`): the one way a report, an error or a warning line,
    reaches a stream a bar may be drawn on (found by a user trial: ``predict``'s
    ``textnb: error: b.txt: binary file, skipped`` was glued onto the end of the bar). Its
    control characters are escaped (:func:`textnb.cli.streams.one_line`): a file name it
    names cannot make it two lines."""
    text = one_line(text)
    for bar in reversed(_drawn):
        if bar.stream is stream:
            bar.write(text)
            return
    stream.write(f"{text}\n")
    stream.flush()


def _terminal_size(stream):
    """``(columns, lines)`` of the terminal ``stream`` writes to (0 for a terminal that
    reports no size), or None when it cannot be asked (no file descriptor)."""
    import os

    try:
        return tuple(os.get_terminal_size(stream.fileno()))
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def _is_terminal(stream):
    try:
        return stream is not None and hasattr(stream, "isatty") and bool(stream.isatty())
    except (OSError, ValueError):  # (a closed stream)
        return False


class Progress:
    """``bar(done, total=None)`` reports progress; ``close()`` clears the line.

    Parameters
    ----------
    label : str
        What is being done ("reading", "folds", "classifying").
    total : int, default=None
        The number of steps, when known.
    stream : file
        Where the bar is drawn: the command's standard error, the ``stderr`` its ``main``
        was given (never ``sys.stderr`` by default: a bar drawn there went past a caller's
        stream, and on a terminal even when that stream was not one).
    unit : str, default="it"
        tqdm's unit ("doc", "msg"); ``"B"``: the steps are bytes (a file read where its
        number of rows is unknown), drawn as sizes (``120M/490M``).
    results : file, default=None
        Where the command writes a line per item done (``predict``'s standard output):
        when it is a terminal too, no bar is drawn, as those lines would run into it
        (``classifying: 2457doc [...]docs/02001.txt	ham``) and they show the progress.
    """

    def __init__(self, label, total=None, *, stream, unit="it", results=None):
        self.stream = stream
        self.enabled = _is_terminal(self.stream) and not _is_terminal(results)
        self.label, self.total, self.unit, self._last = label, total, unit, 0.0
        self._tqdm, self._done, self._started, self._line = None, 0, False, ""
        if self.enabled and total is not None:  # (drawn at once: 0/N; without a total, at its first report)
            self._start(total)

    def _start(self, total):
        """The tqdm bar, made when its total is known (a bar made before drew ``0it`` and
        then ``0/5``): at once when given one, else at the first report; without tqdm,
        this class's own line."""
        self._started = True
        _drawn.append(self)
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            # no monitor thread (it only re-times bars updated seldom): a process with a
            # second thread may not fork the workers that share its work (core.forkmap)
            tqdm.monitor_interval = 0
            # the terminal's size, followed as it is resized; on a terminal that reports
            # 0 columns or lines (a pty given no size: ``script -q -c``, some CI runners)
            # tqdm takes -1 of each and draws nothing, so it gets a fixed size instead
            size = _terminal_size(self.stream)
            if size is not None and 0 in size:
                shape = {"ncols": size[0] or FALLBACK_COLUMNS, "nrows": size[1] or FALLBACK_LINES}
            else:
                shape = {"dynamic_ncols": True}
            if self.unit == "B":
                shape.update(unit_scale=True, unit_divisor=1024)
            self._tqdm = tqdm(desc=self.label, total=total, unit=self.unit, file=self.stream, leave=False,
                              **shape)

    def __call__(self, done, total=None):
        """Report ``done`` steps of ``total`` (None: the total given before, if any). A
        total is kept for the reports after it, and grows to ``done`` when passed (a
        total known before reading counts files, and an mbox file among them holds
        several documents)."""
        if not self.enabled:
            return
        total = total if total is not None else self.total
        if total is not None and done > total:
            total = done
        self.total = total
        if not self._started:
            self._start(total)
        if self._tqdm is not None:
            if total is not None and total != self._tqdm.total:
                self._tqdm.total = total
                self._tqdm.refresh()
            self._tqdm.update(done - self._done)
            self._done = done
            return
        now = time.monotonic()
        if now - self._last < 0.1 and (total is None or done < total):
            return
        self._last = now
        # the line fits the terminal's width, followed as it is resized (as tqdm's dynamic_ncols):
        # a line wider than the terminal wrapped, and each redraw left a line behind (found by a
        # hunt, session 49: a 30-column terminal); the bar narrows, then goes, then the line is cut
        size = _terminal_size(self.stream)
        room = (size[0] if size and size[0] > 0 else FALLBACK_COLUMNS) - 1  # (the last column: no wrap)
        text = f"{self.label} {self._amount(done)}"
        if total:
            counts = f"{self._amount(done)}/{self._amount(total)}"
            width = min(30, room - len(self.label) - len(counts) - 4)  # (" [", "] ")
            filled = int(width * min(done / total, 1.0))
            text = (f"{self.label} [{'#' * filled}{'-' * (width - filled)}] {counts}" if width >= 5
                    else f"{self.label} {counts}")
        text = text[:room]
        # (padded over what a longer line before it left, as tqdm does: a terminal made narrower)
        line = f"\r{text.ljust(min(len(self._line) - 1, room))}"
        self._line = line
        self.stream.write(line)
        self.stream.flush()

    def write(self, text):
        """Write the line ``text`` to the bar's stream: when a bar is drawn, its line is
        cleared first and the bar drawn again below ``text`` (tqdm's ``tqdm.write``), so a
        line printed while it runs stands on its own line, not glued onto the bar's."""
        if self._tqdm is not None:
            self._tqdm.write(text, file=self.stream)
            return
        redraw = self._line if self.enabled and self._started else ""
        self.stream.write(f"\r\033[K{text}\n{redraw}" if redraw else f"{text}\n")
        self.stream.flush()

    def _amount(self, n):
        """``n`` steps as the plain bar writes them: a count, or for bytes a size (``120M``, as tqdm's)."""
        if self.unit != "B" or n < 1024:
            return str(n)
        for prefix in "KMGT":
            n /= 1024
            if n < 1024 or prefix == "T":
                return f"{n:.1f}{prefix}" if n < 10 else f"{n:.0f}{prefix}"

    def close(self):
        if self in _drawn:
            _drawn.remove(self)
        if not self.enabled or not self._started:  # (nothing drawn yet)
            return
        if self._tqdm is not None:
            self._tqdm.close()
            self._tqdm = None
            return
        self._line = ""
        self.stream.write("\r\033[K")
        self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
