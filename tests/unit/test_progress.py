"""A long run without a terminal says where it is in plain lines, now and then; never a bar, never silence."""

import io

from haygate.progress import Lines, progress_bar


def test_a_line_every_so_often_with_the_rate_and_the_time_left() -> None:
    now = [0.0]
    out = io.StringIO()
    lines = Lines(2880, "ingest docs", "rec", every=15.0, stream=out, clock=lambda: now[0])
    for _ in range(10):  # 10 batches of 120 records, 4 s apart
        now[0] += 4.0
        lines.set_postfix_str("3,400 chunks")
        lines.update(120)
    printed = out.getvalue().splitlines()
    assert len(printed) == 2  # at 16 s and at 32 s: one line per 15 s at most, however many batches
    assert printed[0] == "ingest docs: 480 of 2,880 rec (17 %), 30.0 rec/s, about 80 s left; 3,400 chunks"
    assert "\r" not in out.getvalue() and "%|" not in out.getvalue()


def test_nothing_is_said_of_a_run_that_ends_sooner() -> None:
    out = io.StringIO()
    with Lines(3, "ingest docs", "rec", stream=out, clock=lambda: 1.0) as lines:
        lines.update(3)
    assert out.getvalue() == ""


def test_the_form_follows_what_was_asked() -> None:
    assert isinstance(progress_bar(10, "x", "rec", None), Lines)  # pytest's stderr is no terminal
    assert not isinstance(progress_bar(10, "x", "rec", False), Lines)
    assert progress_bar(10, "x", "rec", False).disable
