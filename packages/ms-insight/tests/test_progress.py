import io

from ms_insight import progress


def test_progress_draws_when_asked_and_counts_to_total():
    out = io.StringIO()
    with progress(total=4, desc="runs", enabled=True, file=out) as bar:
        for _ in range(4):
            bar.update(1)
    assert "runs" in out.getvalue() and "4/4" in out.getvalue()


def test_progress_stays_silent_off_a_terminal_by_default():
    out = io.StringIO()  # not a terminal
    assert list(progress([1, 2, 3], file=out)) == [1, 2, 3]
    assert out.getvalue() == ""
    out = io.StringIO()
    assert list(progress([1], enabled=False, file=out)) == [1] and out.getvalue() == ""
